import type { RequestHandler } from 'express';
import { RateLimitedError } from '../errors/apiErrors.ts';
import type { AuthedAccount } from './createAuthenticate.ts';
import type { WindowCounter } from './createWindowCounter.ts';

/**
 * Per-API-key rate limit, shared by every gateway instance through Redis; runs after
 * authentication. While Redis does not answer, each process counts on its own with the same limit
 * (so a deployment of N gateways allows up to N times the limit then), rather than letting
 * everything through.
 */
export function createRateLimit(opts: { limit: number; counter: WindowCounter }): RequestHandler {
  return async (_req, res, next) => {
    if (opts.limit <= 0) return next();
    const account = res.locals.account as AuthedAccount | undefined;
    if (!account) return next();
    const { count, resetMs } = await opts.counter.hit(account.keyId);
    res.setHeader('x-rate-limit-limit', String(opts.limit));
    res.setHeader('x-rate-limit-remaining', String(Math.max(0, opts.limit - count)));
    if (count > opts.limit) throw new RateLimitedError(Math.max(1, Math.ceil(resetMs / 1000)));
    next();
  };
}
