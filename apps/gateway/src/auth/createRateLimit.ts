import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimitedError } from '../errors/apiErrors.ts';
import type { AuthedAccount } from './createAuthenticate.ts';

export interface RateLimitOptions {
  /** Requests allowed per key per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  /** Redis key prefix (tests use their own). */
  keyPrefix: string;
}

// Fixed window: one INCR per request, the window's expiry set by its first request.
const FIXED_WINDOW = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/**
 * Per-API-key rate limit in Redis, shared by every gateway instance. Runs after authentication.
 * When Redis fails the request goes through (logged): availability over strictness.
 */
export function createRateLimit(opts: RateLimitOptions & { redis: Redis; logger: Logger }): RequestHandler {
  return async (_req, res, next) => {
    if (opts.limit <= 0) return next();
    const account = res.locals.account as AuthedAccount | undefined;
    if (!account) return next();
    let count: number;
    let ttlMs: number;
    try {
      const reply = (await opts.redis.eval(
        FIXED_WINDOW,
        1,
        `${opts.keyPrefix}${account.keyId}`,
        opts.windowMs,
      )) as [number, number];
      [count, ttlMs] = reply;
    } catch (err) {
      opts.logger.warn({ err, requestId: res.locals.requestId }, 'rate limit check failed; request allowed');
      return next();
    }
    res.setHeader('x-rate-limit-limit', String(opts.limit));
    res.setHeader('x-rate-limit-remaining', String(Math.max(0, opts.limit - count)));
    if (count > opts.limit) throw new RateLimitedError(Math.max(1, Math.ceil(ttlMs / 1000)));
    next();
  };
}
