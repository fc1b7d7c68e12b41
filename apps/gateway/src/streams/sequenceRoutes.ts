import { findSequencedDeliveries, getStream, lastSequenceOf } from '@tributary/db/streams';
import { streamSequenceQuery } from '@tributary/schema';
import { bodyForAttempt } from '@tributary/webhooks';
import type { Router } from 'express';
import { BadRequestError, NotFoundError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import { parseQuery } from '../params/parseQuery.ts';
import type { Query } from '../params/queryParams.ts';
import { type StreamRouteDeps, accountOf, streamIdParam } from './streamDeps.ts';
import { streamSequenceContract } from './streamContracts.ts';

/** Sequence numbers one call may span. */
const MAX_SPAN = 100;

/** GET /streams/evm/{id}/sequence?from=&to=. */
export function addSequenceRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, streamSequenceContract, async (req, res) => {
    const id = streamIdParam(req.params['id']);
    if (!(await getStream(deps.pool, accountOf(res).id, id))) throw new NotFoundError('Stream not found');
    const q = parseQuery(streamSequenceQuery, req.query as Query);
    const from = Number(q.from);
    const to = Number(q.to);
    if (from > to) throw new BadRequestError('from must not be above to');
    if (to - from + 1 > MAX_SPAN) throw new BadRequestError(`from and to span more than ${MAX_SPAN} numbers`);
    const [found, lastSequence] = await Promise.all([
      findSequencedDeliveries(deps.pool, id, from, to),
      lastSequenceOf(deps.pool, id),
    ]);
    sendJson(res, 200, {
      lastSequence,
      result: found.map((d) => ({
        sequence: d.sequence,
        deliveryId: d.deliveryId,
        chainId: `0x${d.chainId.toString(16)}`,
        blockNumber: d.blockNumber,
        blockHash: d.blockHash,
        status: d.status,
        payload: JSON.parse(bodyForAttempt(d.body, 0, d.sequence)) as Record<string, unknown>,
      })),
    });
  });
}
