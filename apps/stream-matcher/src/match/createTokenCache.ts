import type { Pool } from '@tributary/db';
import { findStreamTokens } from '@tributary/db/streams';
import type { KnownToken } from '@tributary/schema';

/** How long token metadata and spam flags are trusted before they are read again. */
const TTL_MS = 60_000;

/** Token metadata and spam flags from the tokens table, read once per block for all its tokens and kept TTL_MS. */
export interface TokenCache {
  /** Reads what is not cached (or is stale) of `addresses`, in one round trip. */
  prefetch(chainId: number, addresses: Iterable<string>): Promise<void>;
  /** What prefetch found (undefined: the tables do not know the token). */
  get(chainId: number, address: string): KnownToken | undefined;
  /** Addresses held: those prefetched within about the last two TTLs. */
  size(): number;
}

/**
 * Every address a block logs from is prefetched, and a chain sees new contracts every day: entries
 * past their TTL are dropped (a sweep at most once a TTL), so the cache holds what recent blocks
 * used and not every contract the process ever saw.
 */
export function createTokenCache(deps: { pool: Pool; now?: () => number }): TokenCache {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { info: KnownToken | undefined; at: number }>();
  let sweptAt = now();
  return {
    async prefetch(chainId, addresses) {
      const at = now();
      if (at - sweptAt >= TTL_MS) {
        for (const [key, entry] of cache) if (at - entry.at > TTL_MS) cache.delete(key);
        sweptAt = at;
      }
      const missing: string[] = [];
      for (const a of addresses) {
        const hit = cache.get(`${chainId}:${a}`);
        if (!hit || at - hit.at > TTL_MS) missing.push(a);
      }
      if (missing.length === 0) return;
      const found = await findStreamTokens(deps.pool, chainId, missing);
      for (const a of missing) cache.set(`${chainId}:${a}`, { info: found.get(a), at });
    },
    get: (chainId, address) => cache.get(`${chainId}:${address}`)?.info,
    size: () => cache.size,
  };
}
