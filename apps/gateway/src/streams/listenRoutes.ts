import { getWebhookSecrets } from '@tributary/db/accounts';
import { getStream, listStreamWebhooks, streamWebhooksStart } from '@tributary/db/streams';
import type { StreamWebhook, StreamWebhookKey } from '@tributary/db/streams';
import { listenQuery } from '@tributary/schema';
import { webhookHeaders } from '@tributary/webhooks';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { NotFoundError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import { parseQuery } from '../params/parseQuery.ts';
import type { Query } from '../params/queryParams.ts';
import { listLimit } from './pageParams.ts';
import { listenContract } from './streamContracts.ts';
import { type StreamRouteDeps, accountOf, streamIdParam } from './streamDeps.ts';

const listenKey = z.object({ createdAt: z.string(), id: z.string().uuid() });
const DEFAULT_LIMIT = 20;
const DEFAULT_WAIT_MS = 20_000;
const MAX_WAIT_MS = 25_000;
/** How often a waiting request looks at the stream's rows again. */
const POLL_MS = 250;

function waitOf(raw: string | undefined): number {
  return Math.min(raw === undefined ? DEFAULT_WAIT_MS : Number(raw), MAX_WAIT_MS);
}

/** The server stopped listening: it is shutting down. */
function closing(req: Request): boolean {
  return (req.socket as { server?: { listening?: boolean } }).server?.listening === false;
}

/** The client went away, or the server is closing (a wait must not hold its shutdown). */
function abandoned(req: Request, res: Response): boolean {
  return res.destroyed || req.socket.destroyed || closing(req);
}

/** The stream's webhooks after `after`, waiting up to `waitMs` for the first one. */
async function waitForWebhooks(
  deps: StreamRouteDeps,
  streamId: string,
  q: { after: StreamWebhookKey; limit: number; waitMs: number; abandoned: () => boolean },
): Promise<StreamWebhook[]> {
  const deadline = Date.now() + q.waitMs;
  for (;;) {
    const found = await listStreamWebhooks(deps.pool, streamId, { after: q.after, limit: q.limit });
    if (found.length > 0 || Date.now() >= deadline || q.abandoned()) return found;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, deadline - Date.now())));
  }
}

/**
 * GET /streams/evm/{id}/listen: the long poll behind `pnpm listen`. It hands a developer's machine
 * the stream's webhooks as they are stored, so no sender needs to reach it: each with the headers
 * the sender would send, signed now with the account's secrets, and its exact first-attempt body.
 * Without a cursor it answers at once with one that starts after the webhooks stored so far; with
 * one, it waits up to `waitMs` for the next ones. The cursor is a stable key (row time, id) read
 * only below the oldest open transaction, so no row committed late is stepped over.
 */
export function addListenRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, listenContract, async (req, res) => {
    const account = accountOf(res);
    const streamId = streamIdParam(req.params['id']);
    const q = parseQuery(listenQuery, req.query as Query);
    const limit = q.limit === undefined ? DEFAULT_LIMIT : listLimit(q.limit);
    if (!(await getStream(deps.pool, account.id, streamId))) throw new NotFoundError('Stream not found');
    const binding = deps.cursors.bind('listen', { account: account.id, streamId });
    const after = q.cursor
      ? deps.cursors.decode(binding, q.cursor, listenKey).key
      : await streamWebhooksStart(deps.pool);
    const found = q.cursor
      ? await waitForWebhooks(deps, streamId, {
          after,
          limit,
          waitMs: waitOf(q.waitMs),
          abandoned: () => abandoned(req, res),
        })
      : [];
    const secrets = (await getWebhookSecrets(deps.pool, account.id)) ?? { current: account.webhookSecret };
    // A listener polls again at once on the same keep-alive connection, which would keep a closing
    // server busy until its deadline: it is told to reconnect, and finds the next server.
    if (closing(req)) res.setHeader('connection', 'close');
    sendJson(res, 200, {
      result: found.map((w) => ({
        id: w.id,
        blockNumber: w.blockNumber,
        confirmed: w.confirmed,
        removed: w.removal,
        headers: webhookHeaders({ id: w.id, body: w.body, secrets, queueSize: 0 }),
        body: w.body,
      })),
      cursor: deps.cursors.encode(binding, { page: 1, key: found.at(-1)?.key ?? after }),
    });
  });
}
