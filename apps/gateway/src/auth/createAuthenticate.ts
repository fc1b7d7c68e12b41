import { type Pool, findAccountByApiKey } from '@tributary/db';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors/apiErrors.ts';

/** What an authenticated request carries on `res.locals.account`. */
export interface AuthedAccount {
  id: string;
  name: string;
  /** Signs this account's webhooks; may be up to the key cache's TTL old. */
  webhookSecret: string;
  /** The API key used (rate limits are per key). */
  keyId: string;
}

const MAX_CACHED_KEYS = 10_000;

/**
 * Checks `X-API-Key` against the sha256 hashes in api_keys. Valid keys are cached in process for
 * `cacheMs` (so a revocation takes effect within that time); unknown keys are never cached.
 */
export function createAuthenticate(opts: {
  pool: Pool;
  cacheMs: number;
  now?: () => number;
}): RequestHandler {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { account: AuthedAccount; expiresAt: number }>();
  return async (req, res, next) => {
    const key = req.get('x-api-key');
    if (key === undefined || key.trim() === '')
      throw new UnauthorizedError('Missing API key (X-API-Key header)');
    const cached = cache.get(key);
    if (cached && cached.expiresAt > now()) {
      res.locals.account = cached.account;
      return next();
    }
    cache.delete(key);
    const found = await findAccountByApiKey(opts.pool, key);
    if (!found) throw new UnauthorizedError('Invalid API key');
    if (found.revoked) throw new UnauthorizedError('API key revoked');
    const account: AuthedAccount = {
      id: found.accountId,
      name: found.accountName,
      webhookSecret: found.webhookSecret,
      keyId: found.keyId,
    };
    if (opts.cacheMs > 0) {
      if (cache.size >= MAX_CACHED_KEYS) cache.clear();
      cache.set(key, { account, expiresAt: now() + opts.cacheMs });
    }
    res.locals.account = account;
    next();
  };
}
