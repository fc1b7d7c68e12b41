/**
 * Bounds the requests in flight to one endpoint (webhook URL) from this process, so that an
 * endpoint that hangs until the timeout holds at most `limit` of the worker's slots and the other
 * streams keep their throughput. `limit` 0: no bound.
 */
export interface EndpointSlots {
  tryAcquire(endpoint: string): boolean;
  /** `latencyMs`: how long the request held its slot (feeds the endpoint's expected slot time). */
  release(endpoint: string, latencyMs?: number): void;
  /**
   * How long to park a job whose endpoint has no free slot. Parked jobs of one endpoint are spaced
   * at the rate its slots free up (`limit` per observed request time: per timeout when it hangs,
   * almost at once when it is fast), so they come back about when there is room instead of all at
   * once; the wait is capped at `maxWaitMs`, so a backlog drains soon after the endpoint recovers.
   */
  postponeFor(endpoint: string, timeoutMs: number, maxWaitMs: number, now?: number): number;
}

export function createEndpointSlots(limit: number): EndpointSlots {
  const inFlight = new Map<string, number>();
  // endpoint -> the time up to which its expected free slots are already promised to parked jobs
  const promisedUntil = new Map<string, number>();
  // endpoint -> moving average of how long its requests hold a slot
  const slotMs = new Map<string, number>();
  return {
    postponeFor(endpoint, timeoutMs, maxWaitMs, now = Date.now()) {
      // Before any request has finished, assume a quarter of the timeout.
      const step = (slotMs.get(endpoint) ?? timeoutMs / 4) / Math.max(limit, 1);
      const at = Math.max(now, promisedUntil.get(endpoint) ?? 0) + step;
      if (at - now <= maxWaitMs) {
        promisedUntil.set(endpoint, at);
        return Math.ceil(at - now);
      }
      // Beyond the cap: spread over the last window without promising more.
      return Math.ceil(maxWaitMs * (0.5 + Math.random() / 2));
    },
    tryAcquire(endpoint) {
      const n = inFlight.get(endpoint) ?? 0;
      if (limit > 0 && n >= limit) return false;
      inFlight.set(endpoint, n + 1);
      return true;
    },
    release(endpoint, latencyMs) {
      if (latencyMs !== undefined) {
        const prev = slotMs.get(endpoint);
        slotMs.set(endpoint, prev === undefined ? latencyMs : prev * 0.8 + latencyMs * 0.2);
      }
      const n = (inFlight.get(endpoint) ?? 1) - 1;
      if (n <= 0) inFlight.delete(endpoint);
      else inFlight.set(endpoint, n);
    },
  };
}

/** The endpoint a webhook URL names: the URL without its fragment. */
export function endpointOf(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
