import type { Pool } from '@tributary/db';
import { type TokenMetadata, findTokenMetadata } from '@tributary/db/queries';

export interface TokenMetadataCache {
  /** Metadata of each address (null: no such token stored), from the cache or one query for the rest. */
  lookup(chainId: number, addresses: Iterable<string>): Promise<Map<string, TokenMetadata | null>>;
}

/** Tokens kept, over every chain. */
const MAX_ENTRIES = 100_000;

/**
 * Token name, symbol, decimals, logo and flags for transfer records, kept in process for `ttlMs`
 * (a change to a token's logo or flags shows within that time; 0 reads them on every request).
 * A page's tokens that are not cached are read in one query. Bounded: past MAX_ENTRIES, the
 * oldest entries are dropped first.
 */
export function createTokenMetadataCache(opts: {
  pool: Pool;
  ttlMs: number;
  now?: () => number;
}): TokenMetadataCache {
  const now = opts.now ?? Date.now;
  type Entry = { meta: TokenMetadata | null; expiresAt: number };
  const chains = new Map<number, Map<string, Entry>>();
  let size = 0;
  return {
    async lookup(chainId, addresses) {
      let cache = chains.get(chainId);
      if (cache === undefined) {
        cache = new Map();
        chains.set(chainId, cache);
      }
      const out = new Map<string, TokenMetadata | null>();
      const missing: string[] = [];
      const t = now();
      for (const address of addresses) {
        if (out.has(address)) continue;
        const hit = cache.get(address);
        if (hit && hit.expiresAt > t) out.set(address, hit.meta);
        else {
          out.set(address, null);
          missing.push(address);
        }
      }
      if (missing.length === 0) return out;
      const found = await findTokenMetadata(opts.pool, chainId, missing);
      for (const meta of found) out.set(meta.address, meta);
      if (opts.ttlMs > 0) {
        const expiresAt = now() + opts.ttlMs;
        for (const address of missing) {
          if (cache.delete(address)) size--;
          cache.set(address, { meta: out.get(address) ?? null, expiresAt });
          size++;
        }
        // Past the bound, drop the oldest entries (insertion order), chain by chain.
        for (const perChain of chains.values()) {
          for (const key of perChain.keys()) {
            if (size <= MAX_ENTRIES) break;
            perChain.delete(key);
            size--;
          }
        }
      }
      return out;
    },
  };
}
