import type pg from 'pg';
import { bytesToHex, hexToBytes } from '../bytes.ts';
import { type LogPosition, Params, type SortOrder, orderBy, positionConditions } from './keyset.ts';

type Queryable = Pick<pg.Pool, 'query'>;

export interface WalletTransfersFilter {
  chainId: number;
  /** Lower-case hex; transfers where it is the sender or the receiver. */
  wallet: string;
  /** Restrict to these token contracts (lower-case hex); empty or absent: all tokens. */
  contractAddresses?: readonly string[];
  /** Inclusive block bounds. */
  fromBlock?: number;
  toBlock?: number;
}

export interface WalletTransfersQuery extends WalletTransfersFilter {
  order: SortOrder;
  limit: number;
  /** Keyset: rows strictly after this position in `order`. */
  after?: LogPosition;
}

export interface WalletTransferRow {
  chainId: number;
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  blockTimestamp: Date;
  transactionHash: string;
  transactionIndex: number;
  tokenAddress: string;
  fromAddress: string;
  toAddress: string;
  value: bigint;
  tokenName: string | null;
  tokenSymbol: string | null;
  tokenDecimals: number | null;
  tokenLogo: string | null;
  possibleSpam: boolean;
  verified: boolean;
  fromLabel: string | null;
  toLabel: string | null;
}

interface RawRow {
  block_number: string;
  log_index: number;
  block_hash: Buffer;
  block_timestamp: Date;
  transaction_hash: Buffer;
  transaction_index: number;
  token_address: Buffer;
  from_address: Buffer;
  to_address: Buffer;
  value: string;
  token_name: string | null;
  token_symbol: string | null;
  token_decimals: number | null;
  token_logo: string | null;
  possible_spam: boolean | null;
  verified: boolean | null;
  from_label: string | null;
  to_label: string | null;
}

function filterConditions(p: Params, q: WalletTransfersFilter & { order?: SortOrder; after?: LogPosition }) {
  const conds = positionConditions(p, { ...q, order: q.order ?? 'DESC' });
  if (q.contractAddresses && q.contractAddresses.length > 0) {
    conds.push(`token_address = ANY(${p.add(q.contractAddresses.map(hexToBytes))}::bytea[])`);
  }
  return conds.map((c) => ` AND ${c}`).join('');
}

/**
 * One page of a wallet's transfers: a merge of the sender side (transfers_by_from) and the
 * receiver side (transfers_by_to), each an index range scan limited to the page size; a transfer
 * to oneself is taken from the sender side only. Fetches `limit + 1` rows to tell whether a next
 * page exists.
 */
export async function findWalletTransfers(
  db: Queryable,
  q: WalletTransfersQuery,
): Promise<{ rows: WalletTransferRow[]; hasMore: boolean }> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const wallet = p.add(hexToBytes(q.wallet));
  const rest = filterConditions(p, q);
  const n = p.add(q.limit + 1);
  const ord = orderBy(q.order);
  const cols =
    'block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index, token_address, from_address, to_address, value';
  const sql = `
    WITH page AS (
      (SELECT ${cols} FROM transfers
        WHERE chain_id = ${chain} AND from_address = ${wallet}${rest}
        ORDER BY ${ord} LIMIT ${n})
      UNION ALL
      (SELECT ${cols} FROM transfers
        WHERE chain_id = ${chain} AND to_address = ${wallet} AND from_address <> ${wallet}${rest}
        ORDER BY ${ord} LIMIT ${n})
      ORDER BY ${ord} LIMIT ${n}
    )
    SELECT page.*, tok.name AS token_name, tok.symbol AS token_symbol, tok.decimals AS token_decimals,
           tok.logo AS token_logo, tok.possible_spam, tok.verified,
           fl.label AS from_label, tl.label AS to_label
      FROM page
      LEFT JOIN tokens tok ON tok.chain_id = ${chain} AND tok.address = page.token_address
      LEFT JOIN address_labels fl ON fl.chain_id = ${chain} AND fl.address = page.from_address
      LEFT JOIN address_labels tl ON tl.chain_id = ${chain} AND tl.address = page.to_address
     ORDER BY ${ord}`;
  const { rows } = await db.query<RawRow>(sql, p.values);
  const hasMore = rows.length > q.limit;
  return {
    rows: rows.slice(0, q.limit).map((r) => ({
      chainId: q.chainId,
      blockNumber: Number(r.block_number),
      logIndex: r.log_index,
      blockHash: bytesToHex(r.block_hash),
      blockTimestamp: r.block_timestamp,
      transactionHash: bytesToHex(r.transaction_hash),
      transactionIndex: r.transaction_index,
      tokenAddress: bytesToHex(r.token_address),
      fromAddress: bytesToHex(r.from_address),
      toAddress: bytesToHex(r.to_address),
      value: BigInt(r.value),
      tokenName: r.token_name,
      tokenSymbol: r.token_symbol,
      tokenDecimals: r.token_decimals,
      tokenLogo: r.token_logo,
      possibleSpam: r.possible_spam ?? false,
      verified: r.verified ?? false,
      fromLabel: r.from_label,
      toLabel: r.to_label,
    })),
    hasMore,
  };
}

/**
 * Number of transfers matching the filter (every page together): sender side + receiver side -
 * transfers to oneself (counted on both sides). Each term is an index-only count when no
 * contract filter is given (transfers_by_from, transfers_by_to, transfers_self). The self term
 * bounds the wallet with >= and <= rather than =: with "=", PostgreSQL folds
 * `from_address = to_address` into an equivalence class and no longer proves the partial index
 * predicate, falling back to a heap-filtered scan of every receiver-side row.
 */
export async function countWalletTransfers(db: Queryable, q: WalletTransfersFilter): Promise<number> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const wallet = p.add(hexToBytes(q.wallet));
  const rest = filterConditions(p, q);
  const { rows } = await db.query<{ total: string }>(
    `SELECT (SELECT count(*) FROM transfers WHERE chain_id = ${chain} AND from_address = ${wallet}${rest})
          + (SELECT count(*) FROM transfers WHERE chain_id = ${chain} AND to_address = ${wallet}${rest})
          - (SELECT count(*) FROM transfers
              WHERE chain_id = ${chain} AND from_address = to_address
                AND from_address >= ${wallet} AND from_address <= ${wallet}${rest})
          AS total`,
    p.values,
  );
  return Number(rows[0]?.total ?? 0);
}

/** Highest block with a transfer on the chain (primary-key index, one probe); null when none. */
export async function latestTransferBlock(db: Queryable, chainId: number): Promise<number | null> {
  const { rows } = await db.query<{ n: string | null }>(
    'SELECT max(block_number) AS n FROM transfers WHERE chain_id = $1',
    [chainId],
  );
  return rows[0]?.n == null ? null : Number(rows[0].n);
}
