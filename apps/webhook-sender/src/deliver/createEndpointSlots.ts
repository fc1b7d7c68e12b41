/**
 * Bounds the requests in flight to one endpoint (a webhook URL's origin, see endpointOf) from this
 * process, so that an endpoint that hangs until the timeout holds at most `limit` of the worker's
 * slots and the other streams keep their throughput. `limit` 0: no bound.
 */
export interface EndpointSlots {
  tryAcquire(endpoint: string): boolean;
  /**
   * A slot, waiting up to `maxWaitMs` for one to be released (first come, first served); false
   * when none came. Batch jobs wait so, since a fast endpoint frees a slot within milliseconds.
   */
  acquire(endpoint: string, maxWaitMs: number): Promise<boolean>;
  /** `latencyMs`: how long the request held its slot (feeds the endpoint's expected slot time). */
  release(endpoint: string, latencyMs?: number): void;
  /**
   * How long to park a job whose endpoint has no free slot. Parked jobs of one endpoint are spaced
   * at the rate its slots free up (`limit` per observed request time: per timeout when it hangs,
   * almost at once when it is fast), so they come back about when there is room instead of all at
   * once; the wait is capped at `maxWaitMs`, so a backlog drains soon after the endpoint recovers.
   */
  postponeFor(endpoint: string, timeoutMs: number, maxWaitMs: number, now?: number): number;
  /** Whether tryAcquire would refuse the endpoint now. */
  isBusy(endpoint: string): boolean;
  /** Whether the endpoint's requests have lately held their slots for `thresholdMs` or more. */
  isSlow(endpoint: string, thresholdMs: number): boolean;
  /** How many endpoints with requests in flight have no free slot now. */
  saturated(): number;
}

/**
 * `slow`: endpoints whose requests lately held their slots `thresholdMs` or more hold at most
 * `limit` slots together, so that hanging endpoints (each request a worker slot until the timeout)
 * never take all of a worker's job slots, however many of them there are.
 */
export function createEndpointSlots(
  limit: number,
  slow?: { thresholdMs: number; limit: number },
): EndpointSlots {
  const inFlight = new Map<string, number>();
  // endpoint -> slots it holds that were taken while it was slow; and their sum
  const slowHeld = new Map<string, number>();
  let slowInFlight = 0;
  // endpoint -> the time up to which its expected free slots are already promised to parked jobs
  const promisedUntil = new Map<string, number>();
  // endpoint -> moving average of how long its requests hold a slot
  const slotMs = new Map<string, number>();
  // endpoint -> attempts waiting for a slot, oldest first (a released slot goes straight to one)
  const waiting = new Map<string, { take: (got: boolean) => void }[]>();
  const isSlowNow = (endpoint: string) =>
    slow !== undefined && (slotMs.get(endpoint) ?? 0) >= slow.thresholdMs;
  const isBusy = (endpoint: string) =>
    (limit > 0 && (inFlight.get(endpoint) ?? 0) >= limit) ||
    (slow !== undefined && slowInFlight >= slow.limit && isSlowNow(endpoint));
  const tryAcquire = (endpoint: string) => {
    const n = inFlight.get(endpoint) ?? 0;
    if (limit > 0 && n >= limit) return false;
    if (isSlowNow(endpoint)) {
      if (slow && slowInFlight >= slow.limit) return false;
      slowInFlight++;
      slowHeld.set(endpoint, (slowHeld.get(endpoint) ?? 0) + 1);
    }
    inFlight.set(endpoint, n + 1);
    return true;
  };
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
    isSlow(endpoint, thresholdMs) {
      return (slotMs.get(endpoint) ?? 0) >= thresholdMs;
    },
    tryAcquire,
    isBusy,
    saturated() {
      let n = 0;
      for (const endpoint of inFlight.keys()) if (isBusy(endpoint)) n++;
      return n;
    },
    acquire(endpoint, maxWaitMs) {
      if (tryAcquire(endpoint)) return Promise.resolve(true);
      if (maxWaitMs <= 0) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const queue = waiting.get(endpoint) ?? [];
        waiting.set(endpoint, queue);
        const waiter = {
          take: (got: boolean) => {
            clearTimeout(timer);
            resolve(got);
          },
        };
        const timer = setTimeout(() => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          if (queue.length === 0 && waiting.get(endpoint) === queue) waiting.delete(endpoint);
          resolve(false);
        }, maxWaitMs);
        queue.push(waiter);
      });
    },
    release(endpoint, latencyMs) {
      if (latencyMs !== undefined) {
        const prev = slotMs.get(endpoint);
        slotMs.set(endpoint, prev === undefined ? latencyMs : prev * 0.8 + latencyMs * 0.2);
      }
      const queue = waiting.get(endpoint);
      const next = queue?.shift();
      if (queue?.length === 0) waiting.delete(endpoint);
      // The slot passes to the oldest waiter: the count in flight stays as it is.
      if (next) return next.take(true);
      const held = slowHeld.get(endpoint) ?? 0;
      if (held > 0) {
        slowInFlight--;
        if (held === 1) slowHeld.delete(endpoint);
        else slowHeld.set(endpoint, held - 1);
      }
      const n = (inFlight.get(endpoint) ?? 1) - 1;
      if (n <= 0) inFlight.delete(endpoint);
      else inFlight.set(endpoint, n);
    },
  };
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * The endpoint a webhook URL names: its origin, scheme://host:port. Slots are per origin, not per
 * URL: paths and queries (`?n=1`, `?n=2`, ...) of one server would otherwise each get a limit of
 * their own, and multiply the connections opened to it.
 */
export function endpointOf(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url; // refused before any connection; a key of its own is harmless
  }
  const host = u.hostname.replace(/\.$/, '');
  return `${u.protocol}//${host}:${u.port || DEFAULT_PORTS[u.protocol] || ''}`;
}
