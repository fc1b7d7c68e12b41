import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { hexByteaTypes } from './hexByteaTypes.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** What a transfer record shows of its token. */
export interface TokenMetadata {
  /** Lower-case hex. */
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  logo: string | null;
  possibleSpam: boolean;
  verified: boolean;
}

/** Metadata of the given tokens (primary-key probes); tokens not stored are simply absent. */
export async function findTokenMetadata(
  db: Queryable,
  chainId: number,
  addresses: readonly string[],
): Promise<TokenMetadata[]> {
  if (addresses.length === 0) return [];
  const { rows } = await db.query<{
    address: string;
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    logo: string | null;
    possible_spam: boolean;
    verified: boolean;
  }>({
    name: 'token_metadata_v1',
    text: `SELECT address, name, symbol, decimals, logo, possible_spam, verified
             FROM tokens WHERE chain_id = $1 AND address = ANY($2::bytea[])`,
    values: [chainId, addresses.map(hexToBytes)],
    types: hexByteaTypes,
  });
  return rows.map((r) => ({
    address: r.address,
    name: r.name,
    symbol: r.symbol,
    decimals: r.decimals,
    logo: r.logo,
    possibleSpam: r.possible_spam,
    verified: r.verified,
  }));
}
