import type { KnownToken } from '@tributary/schema';
import type { Pool, PoolClient } from 'pg';
import { bytesToHex, hexToBytes } from '../bytes.ts';

type Db = Pool | PoolClient;

/** Metadata and spam flag of the known tokens among `addresses` (one round trip for a whole block). */
export async function findStreamTokens(
  db: Db,
  chainId: number,
  addresses: readonly string[],
): Promise<Map<string, KnownToken>> {
  const out = new Map<string, KnownToken>();
  if (addresses.length === 0) return out;
  const { rows } = await db.query<{
    address: Buffer;
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    possible_spam: boolean;
  }>(
    `SELECT address, name, symbol, decimals, possible_spam FROM tokens
      WHERE chain_id = $1 AND address = ANY($2::bytea[])`,
    [chainId, addresses.map(hexToBytes)],
  );
  for (const r of rows) {
    out.set(bytesToHex(r.address), {
      name: r.name,
      symbol: r.symbol,
      decimals: r.decimals,
      possibleSpam: r.possible_spam,
    });
  }
  return out;
}
