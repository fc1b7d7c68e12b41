import {
  type HistoryItem,
  deliveriesRetainedSince,
  deliveryStats,
  getStream,
  listHistory,
} from '@tributary/db/streams';
import { bodyForAttempt, replayDelivery } from '@tributary/webhooks';
import { historyQuery } from '@tributary/schema';
import type { Router } from 'express';
import { z } from 'zod';
import { NotFoundError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import type { Query } from '../params/queryParams.ts';
import { listLimit } from './pageParams.ts';
import { parseQuery } from '../params/parseQuery.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import { historyContract, replayContract, statsContract, streamStatsContract } from './streamContracts.ts';
import { type StreamRouteDeps, accountOf, isUuid, streamIdParam } from './streamDeps.ts';

const historyKey = z.object({ createdAt: z.string(), id: z.string().uuid() });

function formatHistory(item: HistoryItem, withPayload: boolean): Record<string, unknown> {
  // As sent: an ordered stream's number is part of the body the receiver got.
  const payload = JSON.parse(bodyForAttempt(item.body, 0, item.sequence)) as Record<string, unknown>;
  const out: Record<string, unknown> = {
    id: item.id,
    date: item.createdAt.toISOString(),
    streamId: item.streamId,
    tag: item.tag,
    webhookUrl: item.webhookUrl,
    status: item.status,
    attempts: item.attempts,
    errorMessage: item.lastError ?? '',
    deliveredAt: item.deliveredAt?.toISOString() ?? null,
    tinyPayload: {
      chainId: payload['chainId'],
      confirmed: payload['confirmed'],
      block: (payload['block'] as { number?: string } | undefined)?.number ?? '',
      records: ((payload['logs'] as unknown[]).length + (payload['txs'] as unknown[]).length).toString(),
      retries: item.attempts.toString(),
      // A removal notice (a stream's opt-in) says so here too.
      ...(payload['removed'] === true ? { removed: true } : {}),
    },
  };
  if (withPayload) out['payload'] = payload;
  return out;
}

/** GET /history, POST /history/replay/{streamId}/{id}, GET /stats, GET /stats/{streamId}. */
export function addHistoryRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, historyContract, async (req, res) => {
    const account = accountOf(res);
    const q = parseQuery(historyQuery, req.query as Query);
    const limit = listLimit(q.limit);
    const streamId = q.streamId === undefined ? undefined : streamIdParam(q.streamId);
    const excludePayload = q.excludePayload === 'true';
    const binding = deps.cursors.bind('history', { account: account.id, limit, streamId });
    const state = q.cursor ? deps.cursors.decode(binding, q.cursor, historyKey) : undefined;
    const [{ items, total }, retainedSince] = await Promise.all([
      listHistory(deps.pool, account.id, {
        limit,
        ...(streamId ? { streamId } : {}),
        ...(state ? { before: state.key } : {}),
      }),
      deliveriesRetainedSince(deps.pool),
    ]);
    const body: Record<string, unknown> = {
      result: items.map((i) => formatHistory(i, !excludePayload)),
      total,
      retainedSince: retainedSince?.toISOString() ?? null,
    };
    const page = state?.page ?? 0;
    const last = items[items.length - 1];
    if (last && items.length === limit && (page + 1) * limit < total) {
      body['cursor'] = deps.cursors.encode(binding, {
        page: page + 1,
        key: { createdAt: last.createdAtKey, id: last.id },
      });
    }
    sendJson(res, 200, body);
  });

  registerRoute(router, replayContract, async (req, res) => {
    const account = accountOf(res);
    const streamId = streamIdParam(req.params['streamId']);
    const id = req.params['id'] ?? '';
    // The full uuid shape: 36 hex digits and dashes in any order reached PostgreSQL's uuid cast (500).
    if (!isUuid(id)) throw new NotFoundError('Delivery not found');
    const replayed = await replayDelivery(
      { pool: deps.pool, queue: deps.deliveryQueue },
      { accountId: account.id, streamId, deliveryId: id.toLowerCase() },
    );
    if (!replayed) throw new NotFoundError('Delivery not found');
    const { item } = replayed;
    sendJson(res, 200, formatHistory(item, true));
  });

  registerRoute(router, statsContract, async (_req, res) => {
    sendJson(res, 200, await deliveryStats(deps.pool, accountOf(res).id));
  });

  registerRoute(router, streamStatsContract, async (req, res) => {
    const account = accountOf(res);
    const streamId = streamIdParam(req.params['streamId']);
    if (!(await getStream(deps.pool, account.id, streamId))) throw new NotFoundError('Stream not found');
    sendJson(res, 200, await deliveryStats(deps.pool, account.id, streamId));
  });
}
