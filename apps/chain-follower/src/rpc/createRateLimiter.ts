/** Lets calls go at `perSecond` (first come, first served); no limit when 0. */
export interface RateLimiter {
  acquire(): Promise<void>;
}

/**
 * A token bucket on the clock: a fifth of a second's calls may go at once, so that timers that
 * fire late do not lose rate, and a stalled event loop does not release a burst the provider
 * would refuse (a schedule fixed in advance releases every call it owes at once after a stall).
 */
export function createRateLimiter(perSecond: number): RateLimiter {
  if (perSecond <= 0) return { acquire: () => Promise.resolve() };
  const perMs = perSecond / 1000;
  const capacity = Math.max(1, perSecond / 5);
  let tokens = capacity;
  let refilledAt = Date.now();
  const waiting: (() => void)[] = [];
  let timer: NodeJS.Timeout | null = null;

  function pump() {
    timer = null;
    const now = Date.now();
    tokens = Math.min(capacity, tokens + (now - refilledAt) * perMs);
    refilledAt = now;
    while (waiting.length > 0 && tokens >= 1) {
      tokens--;
      waiting.shift()!();
    }
    if (waiting.length > 0) timer = setTimeout(pump, Math.ceil((1 - tokens) / perMs));
  }

  return {
    acquire() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!timer) pump();
      });
    },
  };
}
