import { createHash } from 'node:crypto';
import type { Pool } from '@tributary/db';
import { type ApiKeyAccount, findAccountByApiKey } from '@tributary/db/accounts';
import type { RequestHandler } from 'express';
import { RateLimitedError, UnauthorizedError } from '../errors/apiErrors.ts';
import { clientAddressKey } from './clientAddressKey.ts';
import type { WindowCounter } from './createWindowCounter.ts';

/** What an authenticated request carries on `res.locals.account`. */
export interface AuthedAccount {
  id: string;
  name: string;
  /** Signs this account's webhooks; may be up to the key cache's TTL old. */
  webhookSecret: string;
  /** The API key used (rate limits are per key). */
  keyId: string;
}

/** Keys kept in each cache at most: past it the oldest go first. */
const MAX_CACHED_KEYS = 10_000;

/** A bounded map whose entries expire; the oldest entry goes first when it is full. */
function createExpiringCache<V>(ttlMs: number, now: () => number) {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key: string): V | undefined {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt > now()) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key: string, value: V): void {
      if (ttlMs <= 0) return;
      entries.delete(key);
      if (entries.size >= MAX_CACHED_KEYS) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, expiresAt: now() + ttlMs });
    },
  };
}

const REFUSED = {
  unknown: 'Invalid API key',
  revoked: 'API key revoked',
} as const;

/**
 * Checks `X-API-Key` against the sha256 hashes in api_keys. Valid keys are kept in process for
 * `cacheMs` (so a revocation takes effect within that time); keys found unknown or revoked for
 * `refusedCacheMs`, so that their repeats cost no query. Failed authentications are counted per
 * client address (clientAddressKey): each lookup is charged to the address before it runs and
 * given back when the key is valid, so an address gets at most `failures.limit` lookups of keys
 * that fail per window, and after that a 429 without a query (keys already known valid still pass).
 * Concurrent lookups of one key share one query.
 */
export function createAuthenticate(opts: {
  pool: Pool;
  cacheMs: number;
  refusedCacheMs: number;
  /** Failed authentications allowed per client address per window; `limit` 0: no bound. */
  failures: { limit: number; counter: WindowCounter };
  now?: () => number;
}): RequestHandler {
  const now = opts.now ?? Date.now;
  const valid = createExpiringCache<AuthedAccount>(opts.cacheMs, now);
  // By the key's digest: a refused key is any string a client sends, up to the header limit.
  const refused = createExpiringCache<keyof typeof REFUSED>(opts.refusedCacheMs, now);
  const lookups = new Map<string, Promise<ApiKeyAccount | undefined>>();

  /** Charges one failed (or possibly failing) authentication to the address; a 429 past its budget. */
  async function charge(address: string, res: Parameters<RequestHandler>[1]): Promise<void> {
    if (opts.failures.limit <= 0) return;
    const { count, resetMs } = await opts.failures.counter.hit(address);
    if (count <= opts.failures.limit) return;
    res.locals.authThrottled = true;
    throw new RateLimitedError(
      Math.max(1, Math.ceil(resetMs / 1000)),
      'Too many requests with an invalid API key from this address',
    );
  }

  function lookUp(key: string): Promise<ApiKeyAccount | undefined> {
    let pending = lookups.get(key);
    if (pending === undefined) {
      pending = findAccountByApiKey(opts.pool, key).finally(() => lookups.delete(key));
      lookups.set(key, pending);
    }
    return pending;
  }

  return async (req, res, next) => {
    const key = req.get('x-api-key');
    if (key === undefined || key.trim() === '')
      throw new UnauthorizedError('Missing API key (X-API-Key header)');
    const account = valid.get(key);
    if (account !== undefined) {
      res.locals.account = account;
      return next();
    }
    const address = clientAddressKey(req.ip);
    const digest = createHash('sha256').update(key).digest('base64url');
    const known = refused.get(digest);
    if (known !== undefined) {
      await charge(address, res);
      throw new UnauthorizedError(REFUSED[known]);
    }
    // A lookup already running for this key costs nothing more.
    const running = lookups.get(key);
    if (running === undefined) await charge(address, res);
    const found = await (running ?? lookUp(key));
    if (!found || found.revoked) {
      const why = found ? 'revoked' : 'unknown';
      refused.set(digest, why);
      throw new UnauthorizedError(REFUSED[why]);
    }
    if (running === undefined && opts.failures.limit > 0) await opts.failures.counter.undo(address);
    const authed: AuthedAccount = {
      id: found.accountId,
      name: found.accountName,
      webhookSecret: found.webhookSecret,
      keyId: found.keyId,
    };
    valid.set(key, authed);
    res.locals.account = authed;
    next();
  };
}
