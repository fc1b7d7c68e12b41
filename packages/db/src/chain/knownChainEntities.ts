import type { TokenInfo } from '@tributary/schema';
import type { Pool } from 'pg';

import { bytesToHex as hex, hexToBytes as bytes } from '../bytes.ts';

/** A token's naming as the tokens table holds it, with when it was read. */
export type StoredToken = Pick<TokenInfo, 'name' | 'symbol' | 'decimals'> & {
  readAtBlock: number;
  /** The block in which the token was first seen (null for rows written without it). */
  firstSeenHash: string | null;
};

/** Tokens of these that already have metadata in `tokens` (the follower reads metadata once per token). */
export async function findKnownTokens(
  pool: Pool,
  chainId: number,
  addresses: readonly string[],
): Promise<Map<string, StoredToken>> {
  if (addresses.length === 0) return new Map();
  const res = await pool.query<{
    address: Buffer;
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    read_at_block: string;
    first_seen_hash: Buffer | null;
  }>(
    `SELECT address, name, symbol, decimals, read_at_block, first_seen_hash
       FROM tokens WHERE chain_id = $1 AND address = ANY($2::bytea[])`,
    [chainId, addresses.map(bytes)],
  );
  return new Map(
    res.rows.map((r) => [
      hex(r.address),
      {
        name: r.name,
        symbol: r.symbol,
        decimals: r.decimals,
        readAtBlock: Number(r.read_at_block),
        firstSeenHash: r.first_seen_hash ? hex(r.first_seen_hash) : null,
      },
    ]),
  );
}

/** Which of these addresses already have a recorded kind (contract or not) in `address_kinds`. */
export async function findKnownAddressKinds(
  pool: Pool,
  chainId: number,
  addresses: readonly string[],
): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const res = await pool.query<{ address: Buffer }>(
    'SELECT address FROM address_kinds WHERE chain_id = $1 AND address = ANY($2::bytea[])',
    [chainId, addresses.map(bytes)],
  );
  return new Set(res.rows.map((r) => hex(r.address)));
}
