import { randomUUID } from 'node:crypto';
import { withTransaction } from '@tributary/db';
import { getWebhookSecrets } from '@tributary/db/accounts';
import {
  countAccountStreams,
  deleteStream,
  getStream,
  insertStream,
  listStreams,
  lockAccount,
  setStreamStatus,
  updateStreamConfig,
} from '@tributary/db/streams';
import { validateStreamConfig } from '@tributary/stream-rules';
import { type SigningSecrets, resumeHeldDeliveries } from '@tributary/webhooks';
import { streamListQuery, streamStatusBody } from '@tributary/schema';
import type { Router } from 'express';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { formatStream } from './formatStream.ts';
import type { Query } from '../params/queryParams.ts';
import { listLimit } from './pageParams.ts';
import { parseQuery } from '../params/parseQuery.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import {
  createStreamContract,
  deleteStreamContract,
  getStreamContract,
  listStreamsContract,
  setStreamStatusContract,
  updateStreamContract,
} from './streamContracts.ts';
import { sendTestWebhook } from './sendTestWebhook.ts';
import { type StreamRouteDeps, accountOf, streamIdParam } from './streamDeps.ts';
import { QUOTA_VARIABLES } from './streamLimitsEnv.ts';
import { streamChangeOf } from '@tributary/bus';

const listKey = z.object({ createdAt: z.string(), id: z.string().uuid() });

const STATUS_MESSAGES = { active: 'Stream is active', paused: 'Stream is paused' } as const;

function validate(deps: StreamRouteDeps, body: unknown) {
  const result = validateStreamConfig(body, deps.chains, deps.limits.stream);
  if (!result.ok) throw new ValidationError(result.details);
  return result.config;
}

/**
 * The hosted service accepts a stream on any chain it supports; so does this deployment, and says in
 * its log when the stream names a chain that no follower follows (its webhooks start once one does).
 */
async function warnUnfollowed(deps: StreamRouteDeps, streamId: string, chainIds: readonly string[]) {
  try {
    const ids = await deps.followedChains.unfollowed(chainIds.map((c) => Number.parseInt(c, 16)));
    if (ids.length === 0) return;
    deps.logger.warn(
      { streamId, chainIds: ids.map((id) => `0x${id.toString(16)}`) },
      'stream on chains this deployment does not follow: no webhooks for them until a follower follows them',
    );
  } catch (err) {
    deps.logger.warn({ err, streamId }, 'could not tell whether the stream chains are followed');
  }
}

/** The account's secrets as the sender would sign with them now (a rotation window included). */
async function secretsOf(
  deps: StreamRouteDeps,
  accountId: string,
  fallback: string,
): Promise<SigningSecrets> {
  return (await getWebhookSecrets(deps.pool, accountId)) ?? { current: fallback };
}

/** PUT/GET/POST/DELETE /streams/evm[/{id}] and POST /streams/evm/{id}/status. */
export function addStreamRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, createStreamContract, async (req, res) => {
    const account = accountOf(res);
    const config = validate(deps, req.body);
    await sendTestWebhook(deps, config.webhookUrl, await secretsOf(deps, account.id, account.webhookSecret));
    const row = await withTransaction(deps.pool, async (client) => {
      await lockAccount(client, account.id);
      const streams = await countAccountStreams(client, account.id);
      const most = deps.limits.quotas.streamsPerAccount;
      if (streams >= most)
        throw new ValidationError({
          streams: {
            message: `this account has ${streams} streams: the limit is ${most} (${QUOTA_VARIABLES.streamsPerAccount})`,
          },
        });
      return insertStream(client, {
        id: randomUUID(),
        accountId: account.id,
        config,
        chainIds: config.chainIds.map((c) => Number.parseInt(c, 16)),
      });
    });
    deps.announceChange(streamChangeOf(row.id, 'upsert'));
    await warnUnfollowed(deps, row.id, config.chainIds);
    sendJson(res, 200, formatStream(row));
  });

  registerRoute(router, listStreamsContract, async (req, res) => {
    const account = accountOf(res);
    const q = parseQuery(streamListQuery, req.query as Query);
    const limit = listLimit(q.limit);
    const binding = deps.cursors.bind('streams/evm', { account: account.id, limit });
    const state = q.cursor ? deps.cursors.decode(binding, q.cursor, listKey) : undefined;
    const { rows, total } = await listStreams(deps.pool, account.id, limit, state?.key);
    const body: Record<string, unknown> = { result: rows.map(formatStream), total };
    const last = rows[rows.length - 1];
    const page = state?.page ?? 0;
    if (last && rows.length === limit && (page + 1) * limit < total) {
      body['cursor'] = deps.cursors.encode(binding, {
        page: page + 1,
        key: { createdAt: last.createdAtKey, id: last.id },
      });
    }
    sendJson(res, 200, body);
  });

  registerRoute(router, getStreamContract, async (req, res) => {
    const row = await getStream(deps.pool, accountOf(res).id, streamIdParam(req.params['id']));
    if (!row) throw new NotFoundError('Stream not found');
    sendJson(res, 200, formatStream(row));
  });

  registerRoute(router, updateStreamContract, async (req, res) => {
    const account = accountOf(res);
    const id = streamIdParam(req.params['id']);
    const existing = await getStream(deps.pool, account.id, id);
    if (!existing) throw new NotFoundError('Stream not found');
    const patch =
      typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? req.body : {};
    const merged: Record<string, unknown> = { ...existing.config };
    // A partial body: given keys replace stored ones; explicit nulls clear optional ones. A
    // "__proto__" key (JSON.parse makes it a plain one) is defined as a plain key too: assigned,
    // it would become the prototype and lend the validator fields the body never named.
    for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
      if (v === undefined) continue;
      Object.defineProperty(merged, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    const config = validate(deps, merged);
    await sendTestWebhook(deps, config.webhookUrl, await secretsOf(deps, account.id, account.webhookSecret));
    const row = await updateStreamConfig(
      deps.pool,
      account.id,
      id,
      config,
      config.chainIds.map((c) => Number.parseInt(c, 16)),
    );
    if (!row) throw new NotFoundError('Stream not found');
    deps.announceChange(streamChangeOf(id, 'upsert'));
    await warnUnfollowed(deps, id, config.chainIds);
    sendJson(res, 200, formatStream(row));
  });

  registerRoute(router, deleteStreamContract, async (req, res) => {
    const id = streamIdParam(req.params['id']);
    const row = await deleteStream(deps.pool, accountOf(res).id, id);
    if (!row) throw new NotFoundError('Stream not found');
    deps.announceChange(streamChangeOf(id, 'delete'));
    sendJson(res, 200, formatStream(row));
  });

  registerRoute(router, setStreamStatusContract, async (req, res) => {
    const account = accountOf(res);
    const id = streamIdParam(req.params['id']);
    const parsed = streamStatusBody.safeParse(req.body);
    if (!parsed.success)
      throw new ValidationError({ status: { message: 'status must be "active" or "paused"' } });
    const existing = await getStream(deps.pool, account.id, id);
    if (!existing) throw new NotFoundError('Stream not found');
    const { status } = parsed.data;
    if (existing.status === 'terminated') {
      throw new ValidationError({ status: { message: 'a terminated stream cannot change status' } });
    }
    if (status === 'active' && existing.status !== 'active') {
      const url = String(existing.config['webhookUrl']);
      await sendTestWebhook(deps, url, await secretsOf(deps, account.id, account.webhookSecret));
    }
    const row = await setStreamStatus(deps.pool, account.id, id, status, STATUS_MESSAGES[status]);
    if (!row) throw new NotFoundError('Stream not found');
    deps.announceChange(streamChangeOf(id, 'upsert'));
    if (status === 'active') {
      await resumeHeldDeliveries({ pool: deps.pool, queue: deps.deliveryQueue }, id);
    }
    sendJson(res, 200, formatStream(row));
  });
}
