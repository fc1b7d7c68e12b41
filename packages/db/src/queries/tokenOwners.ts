import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { hexByteaTypes } from './hexByteaTypes.ts';
import { statementName } from './statementName.ts';
import { Params, type SortOrder } from './keyset.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** Keyset position in the owners order: (balance, owner address). */
export interface OwnerPosition {
  balance: bigint;
  ownerAddress: string;
}

export interface TokenOwnersQuery {
  chainId: number;
  token: string;
  /** DESC: largest balance first, ties by owner address ascending; ASC is the exact reverse. */
  order: SortOrder;
  limit: number;
  after?: OwnerPosition;
}

export interface TokenOwnerRow {
  ownerAddress: string;
  balance: bigint;
  label: string | null;
  isContract: boolean | null;
}

export interface TokenInfo {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: bigint | null;
  logo: string | null;
  possibleSpam: boolean;
  verified: boolean;
}

/**
 * One page of a token's holders (non-zero balances) from balances_by_token, and the token's
 * metadata, in one statement (one round trip, one snapshot: the total supply matches the
 * balances). The keyset condition mixes directions (balance DESC, owner ASC), so it is split into
 * two index range scans: the rest of the boundary balance, then the balances past it.
 */
export async function findTokenOwners(
  db: Queryable,
  q: TokenOwnersQuery,
): Promise<{ token: TokenInfo | undefined; rows: TokenOwnerRow[]; hasMore: boolean }> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const token = p.add(hexToBytes(q.token));
  const n = p.add(q.limit + 1);
  const desc = q.order === 'DESC';
  const ord = desc ? 'balance DESC, owner_address ASC' : 'balance ASC, owner_address DESC';
  const base = `SELECT owner_address, balance FROM balances
                 WHERE chain_id = ${chain} AND token_address = ${token} AND balance <> 0`;
  let page: string;
  if (q.after) {
    const b = p.add(q.after.balance.toString());
    const o = p.add(hexToBytes(q.after.ownerAddress));
    page = `(${base} AND balance = ${b}::numeric AND owner_address ${desc ? '>' : '<'} ${o} ORDER BY ${ord} LIMIT ${n})
            UNION ALL
            (${base} AND balance ${desc ? '<' : '>'} ${b}::numeric ORDER BY ${ord} LIMIT ${n})
            ORDER BY ${ord} LIMIT ${n}`;
  } else {
    page = `${base} ORDER BY ${ord} LIMIT ${n}`;
  }
  // One row per holder; with no holder, one row of token columns only (owner_address null).
  const sql = `WITH page AS (${page}),
     holders AS (
       SELECT page.owner_address, page.balance, l.label, k.is_contract
         FROM page
         LEFT JOIN address_labels l ON l.chain_id = ${chain} AND l.address = page.owner_address
         LEFT JOIN address_kinds k ON k.chain_id = ${chain} AND k.address = page.owner_address)
     SELECT tok.found, tok.name, tok.symbol, tok.decimals, tok.total_supply, tok.logo, tok.possible_spam,
            tok.verified, holders.*
       FROM (SELECT 1) one
       LEFT JOIN (SELECT true AS found, name, symbol, decimals, total_supply, logo, possible_spam, verified
                    FROM tokens WHERE chain_id = ${chain} AND address = ${token}) tok ON true
       LEFT JOIN holders ON true
      ORDER BY ${ord}`;
  // owner_address arrives as 0x hex (hexByteaTypes).
  const { rows } = await db.query<{
    found: boolean | null;
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    total_supply: string | null;
    logo: string | null;
    possible_spam: boolean | null;
    verified: boolean | null;
    owner_address: string | null;
    balance: string | null;
    label: string | null;
    is_contract: boolean | null;
  }>({ name: statementName('token_owners', sql), text: sql, values: p.values, types: hexByteaTypes });
  const first = rows[0];
  const holders = rows.filter((r) => r.owner_address !== null);
  return {
    token: first?.found
      ? {
          name: first.name,
          symbol: first.symbol,
          decimals: first.decimals,
          totalSupply: first.total_supply === null ? null : BigInt(first.total_supply),
          logo: first.logo,
          possibleSpam: first.possible_spam ?? false,
          verified: first.verified ?? false,
        }
      : undefined,
    rows: holders.slice(0, q.limit).map((r) => ({
      ownerAddress: r.owner_address as string,
      balance: BigInt(r.balance as string),
      label: r.label,
      isContract: r.is_contract,
    })),
    hasMore: holders.length > q.limit,
  };
}
