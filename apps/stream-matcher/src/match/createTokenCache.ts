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
}

export function createTokenCache(deps: { pool: Pool }): TokenCache {
  const cache = new Map<string, { info: KnownToken | undefined; at: number }>();
  return {
    async prefetch(chainId, addresses) {
      const now = Date.now();
      const missing: string[] = [];
      for (const a of addresses) {
        const hit = cache.get(`${chainId}:${a}`);
        if (!hit || now - hit.at > TTL_MS) missing.push(a);
      }
      if (missing.length === 0) return;
      const found = await findStreamTokens(deps.pool, chainId, missing);
      for (const a of missing) cache.set(`${chainId}:${a}`, { info: found.get(a), at: now });
    },
    get: (chainId, address) => cache.get(`${chainId}:${address}`)?.info,
  };
}
