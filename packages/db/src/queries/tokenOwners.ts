import type pg from 'pg';
import { bytesToHex, hexToBytes } from '../bytes.ts';
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
 * One page of a token's holders (non-zero balances) from balances_by_token. The keyset condition
 * mixes directions (balance DESC, owner ASC), so it is split into two index range scans: the rest
 * of the boundary balance, then the balances past it.
 */
export async function findTokenOwners(
  db: Queryable,
  q: TokenOwnersQuery,
): Promise<{ rows: TokenOwnerRow[]; hasMore: boolean }> {
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
  const { rows } = await db.query<{
    owner_address: Buffer;
    balance: string;
    label: string | null;
    is_contract: boolean | null;
  }>(
    `WITH page AS (${page})
     SELECT page.owner_address, page.balance, l.label, k.is_contract
       FROM page
       LEFT JOIN address_labels l ON l.chain_id = ${chain} AND l.address = page.owner_address
       LEFT JOIN address_kinds k ON k.chain_id = ${chain} AND k.address = page.owner_address
      ORDER BY ${ord}`,
    p.values,
  );
  return {
    rows: rows.slice(0, q.limit).map((r) => ({
      ownerAddress: bytesToHex(r.owner_address),
      balance: BigInt(r.balance),
      label: r.label,
      isContract: r.is_contract,
    })),
    hasMore: rows.length > q.limit,
  };
}

export async function findToken(
  db: Queryable,
  chainId: number,
  token: string,
): Promise<TokenInfo | undefined> {
  const { rows } = await db.query<{
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    total_supply: string | null;
    logo: string | null;
    possible_spam: boolean;
    verified: boolean;
  }>(
    `SELECT name, symbol, decimals, total_supply, logo, possible_spam, verified
       FROM tokens WHERE chain_id = $1 AND address = $2`,
    [chainId, hexToBytes(token)],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    name: r.name,
    symbol: r.symbol,
    decimals: r.decimals,
    totalSupply: r.total_supply === null ? null : BigInt(r.total_supply),
    logo: r.logo,
    possibleSpam: r.possible_spam,
    verified: r.verified,
  };
}
