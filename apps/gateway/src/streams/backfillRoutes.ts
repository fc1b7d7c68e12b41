import { withTransaction } from '@tributary/db';
import { followerCheckpointOf } from '@tributary/db/chain';
import {
  type StreamBackfill,
  cancelStreamBackfill,
  countBackfillDelivered,
  countRunningStreamBackfills,
  createStreamBackfill,
  getStream,
  getStreamBackfill,
  listStreamBackfills,
  lockAccount,
} from '@tributary/db/streams';
import { type StreamBackfillBody, streamBackfillBody } from '@tributary/schema';
import type { Request, Response, Router } from 'express';
import { NotFoundError, ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import {
  cancelBackfillContract,
  createBackfillContract,
  getBackfillContract,
  listBackfillsContract,
} from './backfillContracts.ts';
import { type StreamRouteDeps, accountOf, streamIdParam } from './streamDeps.ts';
import { QUOTA_VARIABLES } from './streamLimitsEnv.ts';

/** The answer's shape (streamBackfillResponse). */
function formatBackfill(b: StreamBackfill, delivered: number): Record<string, unknown> {
  return {
    id: b.id,
    streamId: b.streamId,
    chainId: `0x${b.chainId.toString(16)}`,
    fromBlock: b.fromBlock,
    toBlock: b.toBlock,
    dryRun: b.dryRun,
    status: b.status,
    blocks: {
      total: b.toBlock - b.fromBlock + 1,
      done: b.nextBlock - b.fromBlock,
      fromTables: b.blocksFromTables,
      fromNode: b.blocksFromNode,
    },
    matchedBlocks: b.matchedBlocks,
    webhooks: b.webhooks,
    delivered,
    waiting: b.waiting,
    error: b.error,
    createdAt: b.createdAt.toISOString(),
    finishedAt: b.finishedAt?.toISOString() ?? null,
  };
}

async function formatAll(deps: StreamRouteDeps, list: StreamBackfill[]) {
  const delivered = await countBackfillDelivered(
    deps.pool,
    list.filter((b) => !b.dryRun).map((b) => b.id),
  );
  return list.map((b) => formatBackfill(b, delivered.get(b.id) ?? 0));
}

function parseBody(body: unknown): StreamBackfillBody {
  const parsed = streamBackfillBody.safeParse(body);
  if (parsed.success) return parsed.data;
  const details: Record<string, { message: string }> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? 'body');
    details[field] ??= { message: issue.message };
  }
  throw new ValidationError(details);
}

async function ownStreamId(deps: StreamRouteDeps, req: Request, res: Response) {
  const id = streamIdParam(req.params['id']);
  const stream = await getStream(deps.pool, accountOf(res).id, id);
  if (!stream) throw new NotFoundError('Stream not found');
  return stream;
}

const backfillIdOf = (req: Request) => String(req.params['backfillId']);

/** POST / GET /streams/evm/{id}/backfill, GET / DELETE /streams/evm/{id}/backfill/{backfillId}. */
export function addBackfillRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, createBackfillContract, async (req, res) => {
    const account = accountOf(res);
    const stream = await ownStreamId(deps, req, res);
    const body = parseBody(req.body);
    const chainId = Number.parseInt(body.chainId, 16);
    const chains = (stream.config['chainIds'] as string[]).map((c) => Number.parseInt(c, 16));
    if (!chains.includes(chainId))
      throw new ValidationError({ chainId: { message: `the stream is not on chain ${body.chainId}` } });
    if (stream.status === 'terminated')
      throw new ValidationError({ status: { message: 'the stream is terminated' } });
    if (body.fromBlock > body.toBlock)
      throw new ValidationError({ fromBlock: { message: 'fromBlock must not be above toBlock' } });
    const { backfillBlocks, backfillsPerAccount } = deps.limits.quotas;
    const span = body.toBlock - body.fromBlock + 1;
    if (span > backfillBlocks)
      throw new ValidationError({
        toBlock: {
          message: `the range spans ${span} blocks: the limit is ${backfillBlocks} (${QUOTA_VARIABLES.backfillBlocks})`,
        },
      });
    const reached = await followerCheckpointOf(deps.pool, chainId);
    if (reached === undefined)
      throw new ValidationError({ chainId: { message: `chain ${body.chainId} is not followed here` } });
    if (body.toBlock > reached)
      throw new ValidationError({
        toBlock: {
          message: `toBlock ${body.toBlock} is past block ${reached}, the newest the follower reached`,
        },
      });
    const created = await withTransaction(deps.pool, async (client) => {
      // One account's requests one at a time: two at once cannot both pass the quota.
      await lockAccount(client, account.id);
      const running = await countRunningStreamBackfills(client, account.id);
      if (running >= backfillsPerAccount)
        throw new ValidationError({
          backfill: {
            message: `the account has ${running} backfills running: the limit is ${backfillsPerAccount} (${QUOTA_VARIABLES.backfillsPerAccount}); wait for one, or cancel one`,
          },
        });
      return createStreamBackfill(client, {
        accountId: account.id,
        streamId: stream.id,
        chainId,
        fromBlock: body.fromBlock,
        toBlock: body.toBlock,
        dryRun: body.dryRun ?? false,
      });
    });
    if (!created) throw new NotFoundError('Stream not found');
    deps.logger.info(
      {
        backfill: created.id,
        streamId: stream.id,
        accountId: account.id,
        chainId,
        fromBlock: body.fromBlock,
        toBlock: body.toBlock,
        dryRun: created.dryRun,
      },
      'stream backfill requested',
    );
    sendJson(res, 200, formatBackfill(created, 0));
  });

  registerRoute(router, listBackfillsContract, async (req, res) => {
    const stream = await ownStreamId(deps, req, res);
    sendJson(res, 200, {
      result: await formatAll(deps, await listStreamBackfills(deps.pool, stream.id, 100)),
    });
  });

  registerRoute(router, getBackfillContract, async (req, res) => {
    const stream = await ownStreamId(deps, req, res);
    const found = /^[0-9]{1,18}$/.test(backfillIdOf(req))
      ? await getStreamBackfill(deps.pool, stream.id, backfillIdOf(req))
      : undefined;
    if (!found) throw new NotFoundError('Backfill not found');
    const [one] = await formatAll(deps, [found]);
    sendJson(res, 200, one);
  });

  registerRoute(router, cancelBackfillContract, async (req, res) => {
    const stream = await ownStreamId(deps, req, res);
    const result = /^[0-9]{1,18}$/.test(backfillIdOf(req))
      ? await cancelStreamBackfill(deps.pool, stream.id, backfillIdOf(req))
      : undefined;
    if (!result) throw new NotFoundError('Backfill not found');
    if (result.cancelled)
      deps.logger.info({ backfill: result.backfill.id, streamId: stream.id }, 'stream backfill cancelled');
    const [one] = await formatAll(deps, [result.backfill]);
    sendJson(res, 200, one);
  });
}
