import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** A key's hits in its current window, and how long that window still runs. */
interface WindowCount {
  count: number;
  resetMs: number;
}

/**
 * Fixed-window counts per key (an API key, a client address), shared by every gateway through
 * Redis and counted in this process as well: while Redis does not answer, this process's own
 * counts apply, with the same limits (per process then, not per deployment).
 */
export interface WindowCounter {
  /** Counts one hit of `key`. */
  hit(key: string): Promise<WindowCount>;
  /** Takes one hit of `key` back (an attempt that turned out not to count). */
  undo(key: string): Promise<void>;
}

// One INCR per hit, the window's expiry set by its first hit.
const HIT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;
// Never on an expired key: a DECR would make one without expiry.
const UNDO = `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end return 0`;

/** Keys counted in process at most: past it the oldest go first (a flood of addresses cannot grow memory). */
const MAX_LOCAL_KEYS = 100_000;

/** How long a Redis command may take before this process's counts are used. */
const REDIS_TIMEOUT_MS = 500;

export function createWindowCounter(opts: {
  redis: Redis;
  /** Redis key prefix (tests use their own). */
  keyPrefix: string;
  windowMs: number;
  logger: Logger;
  now?: () => number;
}): WindowCounter {
  const now = opts.now ?? Date.now;
  const local = new Map<string, { count: number; endsAt: number }>();
  let redisAway = false;
  let connected = false;
  // After a failure Redis is asked again a second later, not on every request meanwhile (a Redis
  // that hangs would cost each one the timeout).
  let askAgainAt = 0;

  function hitLocal(key: string): WindowCount {
    const at = now();
    let entry = local.get(key);
    if (!entry || entry.endsAt <= at) {
      local.delete(key);
      if (local.size >= MAX_LOCAL_KEYS) local.delete(local.keys().next().value as string);
      entry = { count: 0, endsAt: at + opts.windowMs };
      local.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, resetMs: entry.endsAt - at };
  }

  /** The command's answer, or undefined when Redis is not connected, fails or is too slow. */
  async function ask<T>(command: () => Promise<T>): Promise<T | undefined> {
    // Once connected, a client that is not ready (reconnecting) would queue the command: this
    // process's counts answer at once. Before its first connection it is asked (within the timeout),
    // so that the first requests of a starting gateway are counted where the others will be.
    if (opts.redis.status === 'ready') connected = true;
    else if (connected || opts.redis.status === 'end') return away(new Error(`redis ${opts.redis.status}`));
    if (now() < askAgainAt) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis took over ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
      timer.unref();
    });
    try {
      const reply = await Promise.race([command(), timeout]);
      if (redisAway) {
        redisAway = false;
        opts.logger.info({ keyPrefix: opts.keyPrefix }, 'redis answers again: limits are shared again');
      }
      return reply;
    } catch (err) {
      return away(err);
    } finally {
      clearTimeout(timer);
    }
  }

  function away(err: unknown): undefined {
    askAgainAt = now() + 1_000;
    if (!redisAway) {
      redisAway = true;
      opts.logger.warn(
        { err: err instanceof Error ? err.message : String(err), keyPrefix: opts.keyPrefix },
        'redis does not answer: limits are counted in this process until it does',
      );
    }
    return undefined;
  }

  return {
    async hit(key) {
      const mine = hitLocal(key);
      const shared = await ask(
        () => opts.redis.eval(HIT, 1, `${opts.keyPrefix}${key}`, opts.windowMs) as Promise<[number, number]>,
      );
      return shared ? { count: shared[0], resetMs: shared[1] } : mine;
    },
    async undo(key) {
      const entry = local.get(key);
      if (entry && entry.count > 0) entry.count -= 1;
      await ask(() => opts.redis.eval(UNDO, 1, `${opts.keyPrefix}${key}`));
    },
  };
}
