import type { Pool } from '@tributary/db';
import { getBackfillRequest, requestBackfill } from '@tributary/db/chain';

/**
 * What `npm run admin -- backfill` does: a request that the running follower re-publish blocks
 * [fromBlock, toBlock] (retried while PostgreSQL is away).
 */
export async function requestRangeBackfill(
  pool: Pool,
  range: { chainId: number; fromBlock: number; toBlock: number },
): Promise<{ id: string; at: number }> {
  for (;;) {
    try {
      const request = await requestBackfill(pool, range);
      return { id: request.id, at: Date.now() };
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Waits until the request is finished (the follower re-published the range); null after `timeoutMs`. */
export async function waitBackfillDone(pool: Pool, id: string, timeoutMs: number): Promise<Date | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const request = await getBackfillRequest(pool, id).catch(() => undefined);
    if (request?.finishedAt) return request.finishedAt;
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}
