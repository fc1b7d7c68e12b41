/** Spaces calls evenly at `perSecond` (first come, first served); no limit when 0. */
export interface RateLimiter {
  acquire(): Promise<void>;
}

export function createRateLimiter(perSecond: number): RateLimiter {
  const interval = perSecond > 0 ? 1000 / perSecond : 0;
  let next = 0;
  return {
    acquire() {
      if (interval === 0) return Promise.resolve();
      const now = Date.now();
      const at = Math.max(now, next);
      next = at + interval;
      return at > now ? new Promise((r) => setTimeout(r, at - now)) : Promise.resolve();
    },
  };
}
