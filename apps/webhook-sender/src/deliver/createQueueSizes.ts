import { createBatcher } from './createBatcher.ts';

/**
 * `x-queue-size` per stream, counted at most once per `maxAgeMs` per stream instead of once per
 * delivery: the count walks the stream's pending index, which made it the most expensive read of
 * an attempt. A long queue is counted less often still (once per 10,000 entries per second), so
 * the cost stays bounded when an endpoint is down and its queue grows into the millions. A stale
 * count is answered at once and refreshed in the background; a stream not yet counted waits for
 * its first count, shared by every attempt asking meanwhile. The streams asked for in one turn of
 * the event loop share one query.
 */
export function createQueueSizes(
  count: (streamIds: string[]) => Promise<Map<string, number>>,
  maxAgeMs: number,
  onError: (err: unknown) => void,
): (streamId: string) => Promise<number> {
  const known = new Map<string, { n: number; at: number }>();
  const inFlight = new Map<string, Promise<number>>();
  const countBatch = createBatcher(async (ids: string[]) => {
    const found = await count([...new Set(ids)]);
    const now = Date.now();
    // Streams nobody asked about for a long while (deleted ones) are forgotten.
    if (known.size > 10_000) for (const [id, e] of known) if (now - e.at > 100 * maxAgeMs) known.delete(id);
    for (const id of ids) known.set(id, { n: found.get(id) ?? 0, at: now });
    return ids.map((id) => found.get(id) ?? 0);
  });
  const refresh = (streamId: string): Promise<number> => {
    let running = inFlight.get(streamId);
    if (!running) {
      running = countBatch(streamId).finally(() => inFlight.delete(streamId));
      inFlight.set(streamId, running);
    }
    return running;
  };
  return async (streamId) => {
    const hit = known.get(streamId);
    if (!hit) return refresh(streamId);
    if (Date.now() - hit.at >= Math.max(maxAgeMs, hit.n / 10) && !inFlight.has(streamId))
      refresh(streamId).catch(onError);
    return hit.n;
  };
}
