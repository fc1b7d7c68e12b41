/**
 * Bounds the requests in flight to one endpoint (webhook URL) from this process, so that an
 * endpoint that hangs until the timeout holds at most `limit` of the worker's slots and the other
 * streams keep their throughput. `limit` 0: no bound.
 */
export interface EndpointSlots {
  tryAcquire(endpoint: string): boolean;
  release(endpoint: string): void;
}

export function createEndpointSlots(limit: number): EndpointSlots {
  const inFlight = new Map<string, number>();
  return {
    tryAcquire(endpoint) {
      const n = inFlight.get(endpoint) ?? 0;
      if (limit > 0 && n >= limit) return false;
      inFlight.set(endpoint, n + 1);
      return true;
    },
    release(endpoint) {
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
