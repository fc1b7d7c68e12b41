import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { hexByteaTypes } from './hexByteaTypes.ts';
import {
  type LogPosition,
  Params,
  type SortOrder,
  blockEndPosSql,
  latestBlockSql,
  posOrderBy,
  rowPositionConditions,
} from './keyset.ts';
import { addressIdSql } from './addressIdSql.ts';
import { isoTimestampSql, linesAggSql, pageLines } from './recordLines.ts';
import { statementName } from './statementName.ts';
import { walletCountSql } from './walletCountSql.ts';
import { walletTotalSql } from './walletTotalSql.ts';

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
  /**
   * First page of a paging session with no block bounds: pin the chain's newest transfer block
   * and read the wallet's total up to it in this same statement (one snapshot), see `head`.
   */
  pinHead?: boolean;
}

/** The pinned block and the wallet's total up to it, from a `pinHead` page. */
export interface WalletTransfersHead {
  /** Highest block with a transfer on the chain; null when the page is empty (no next page). */
  pin: number | null;
  total: number;
}

/**
 * One transfer of a page, as PostgreSQL wrote it: the API record's own fields (spec 2.2, from
 * `transaction_hash` to `log_index`, in that order) as JSON members without braces, plus what the
 * caller needs beside them: the keyset position, the token (for its metadata) and the raw value.
 */
export interface WalletTransferRecord {
  blockNumber: number;
  logIndex: number;
  tokenAddress: string;
  /** Raw amount, decimal digits. */
  value: string;
  /** `"transaction_hash":"0x…",…,"log_index":7`: hashes and addresses 0x hex, integers as JSON integers, `value` with every digit, labels JSON strings or null, the timestamp ISO 8601 UTC with milliseconds. */
  members: string;
}

/** As read with hexByteaTypes. */
interface RawPage {
  fetched: number;
  records: string | null;
  head_pin?: string | null;
  head_total?: string;
}

function filterConditions(
  p: Params,
  chain: string,
  q: WalletTransfersFilter & { order?: SortOrder; after?: LogPosition },
) {
  const conds = rowPositionConditions(p, { ...q, order: q.order ?? 'DESC' });
  if (q.contractAddresses && q.contractAddresses.length > 0) {
    conds.push(
      `token_id = ANY(ARRAY(SELECT id FROM address_ids
                             WHERE chain_id = ${chain} AND address = ANY(${p.add(q.contractAddresses.map(hexToBytes))}::bytea[])))`,
    );
  }
  return conds.map((c) => ` AND ${c}`).join('');
}

/** Block range and keyset conditions only (the token is matched by the caller). */
function positionOnly(p: Params, q: WalletTransfersQuery) {
  return rowPositionConditions(p, q)
    .map((c) => ` AND ${c}`)
    .join('');
}

/**
 * One page of a wallet's transfers: a merge of the sender side and the receiver side, each an
 * index range scan limited to the page size; a transfer to oneself is taken from the sender side
 * only. The wallet and the tokens are matched by their address ids (address_ids; an address
 * without one has no transfers), ranges and the keyset by `pos`. Without a token filter the sides
 * read transfers_by_from / transfers_by_to (wallet id, pos). With contract_addresses, each
 * (side, token) is its own range scan of transfers_by_from_token / transfers_by_to_token, already
 * in page order, so a whale's other tokens are never read (a single `token_id = ANY(...)` scan
 * cannot return rows in block order across tokens).
 * Fetches `limit + 1` rows to tell whether a next page exists. Token metadata is not joined:
 * callers look it up by token address (the gateway caches it; see findTokenMetadata).
 */
export async function findWalletTransfers(
  db: Queryable,
  q: WalletTransfersQuery,
): Promise<{ records: WalletTransferRecord[]; hasMore: boolean; head?: WalletTransfersHead }> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const wallet = p.add(hexToBytes(q.wallet));
  const walletId = addressIdSql(chain, wallet);
  const rest = positionOnly(p, q) + (q.pinHead ? ` AND pos < ${blockEndPosSql('(SELECT n FROM pin)')}` : '');
  const n = p.add(q.limit + 1);
  const ord = posOrderBy(q.order);
  const cols =
    'pos, block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index, token_address, from_address, to_address, value';
  const sides = (token: string) => [
    `(SELECT ${cols} FROM transfers
       WHERE from_id = ${walletId}${token}${rest}
       ORDER BY ${ord} LIMIT ${n})`,
    `(SELECT ${cols} FROM transfers
       WHERE to_id = ${walletId} AND from_id <> ${walletId}${token}${rest}
       ORDER BY ${ord} LIMIT ${n})`,
  ];
  const tokens = q.contractAddresses ?? [];
  const branches =
    tokens.length === 0
      ? sides('')
      : tokens.flatMap((t) => sides(` AND token_id = ${addressIdSql(chain, p.add(hexToBytes(t)))}`));
  // With pinHead: the total is the wallet's stored transfer count (walletTotalSql); the projector
  // writes transfers and counts in one transaction, so in one snapshot it is exactly the transfers
  // up to the pin. An empty page means no transfer up to the pin: total 0.
  const head = q.pinHead
    ? {
        with: `pin AS MATERIALIZED (SELECT ${latestBlockSql} AS n FROM transfers WHERE chain_id = ${chain}),`,
        cols: `, (SELECT n FROM pin) AS head_pin, ${walletTotalSql(
          chain,
          wallet,
          tokens.length > 0 ? p.add(tokens.map(hexToBytes)) : undefined,
        )} AS head_total`,
      }
    : { with: '', cols: '' };
  // The page comes back as one text value, one line per transfer (PostgreSQL's JSON escaping never
  // leaves a raw newline in a label): parsing a hundred 12-column rows in the client cost the
  // gateway about three times the CPU PostgreSQL spends writing the same fields as JSON text.
  const sql = `
    WITH ${head.with} page AS (
      ${branches.join('\n      UNION ALL\n      ')}
      ORDER BY ${ord} LIMIT ${n}
    )
    SELECT (SELECT count(*) FROM page)::int AS fetched,
           (SELECT ${linesAggSql(RECORD_LINE, ord)}
              FROM page
              LEFT JOIN address_labels fl ON fl.chain_id = ${chain} AND fl.address = page.from_address
              LEFT JOIN address_labels tl ON tl.chain_id = ${chain} AND tl.address = page.to_address
           ) AS records${head.cols}`;
  // A named (prepared) statement per query shape: each pooled session plans it a few times, then
  // PostgreSQL may keep a generic plan, which saves the planning of a 4- to 8-branch union.
  const { rows } = await db.query<RawPage>({
    name: statementName('wallet_transfers', sql),
    text: sql,
    values: p.values,
    types: hexByteaTypes,
  });
  const r = rows[0];
  const lines = pageLines(r?.records);
  const hasMore = (r?.fetched ?? 0) > q.limit;
  return {
    head: q.pinHead
      ? {
          pin: r?.head_pin == null ? null : Number(r.head_pin),
          total: r?.head_total == null ? 0 : Number(r.head_total),
        }
      : undefined,
    records: lines.slice(0, q.limit).map(parseRecordLine),
    hasMore,
  };
}

/**
 * One transfer as a line of text: `block_number,log_index,<token hex>,<value digits>,` then the
 * record's JSON members (see WalletTransferRecord). Every column is NOT NULL; labels are JSON
 * strings (address_labels.label_json: to_json escapes quotes, backslashes and control characters)
 * or null.
 */
const RECORD_LINE = `block_number || ',' || log_index || ',' || encode(token_address, 'hex') || ',' || value || ','
  || '"transaction_hash":"0x' || encode(transaction_hash, 'hex')
  || '","address":"0x' || encode(token_address, 'hex')
  || '","block_timestamp":"' || ${isoTimestampSql('block_timestamp')}
  || '","block_number":' || block_number
  || ',"block_hash":"0x' || encode(block_hash, 'hex')
  || '","to_address":"0x' || encode(to_address, 'hex')
  || '","to_address_label":' || coalesce(tl.label_json, 'null')
  || ',"from_address":"0x' || encode(from_address, 'hex')
  || '","from_address_label":' || coalesce(fl.label_json, 'null')
  || ',"value":' || value
  || ',"transaction_index":' || transaction_index
  || ',"log_index":' || log_index`;

function parseRecordLine(line: string): WalletTransferRecord {
  const a = line.indexOf(',');
  const b = line.indexOf(',', a + 1);
  const c = b + 41;
  const d = line.indexOf(',', c + 1);
  return {
    blockNumber: Number(line.slice(0, a)),
    logIndex: Number(line.slice(a + 1, b)),
    tokenAddress: `0x${line.slice(b + 1, c)}`,
    value: line.slice(c + 1, d),
    members: line.slice(d + 1),
  };
}

/**
 * Number of transfers matching the filter in its block range (every page together), counted
 * through the indexes (walletCountSql): reads every matching index entry. For a whole history use
 * walletTransferTotalAtHead; for a block range without a token filter, walletRangeTotal.
 */
export async function countWalletTransfers(db: Queryable, q: WalletTransfersFilter): Promise<number> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const wallet = p.add(hexToBytes(q.wallet));
  const rest = filterConditions(p, chain, q);
  const { rows } = await db.query<{ total: string }>(
    `SELECT ${walletCountSql(addressIdSql(chain, wallet), rest)} AS total`,
    p.values,
  );
  return Number(rows[0]?.total ?? 0);
}

export interface WalletTransferTotalAtHead {
  /** Highest block with a transfer on the chain; null when there is none. */
  pin: number | null;
  /**
   * Transfers of the wallet (of the given tokens) up to `toBlock`, or null when `toBlock` lies
   * below `pin`: the stored counts cover the whole history only, count that range instead.
   */
  total: number | null;
}

/**
 * The chain's newest transfer block and the wallet's number of transfers up to it, read in one
 * statement (one snapshot): the projector writes transfers and their counts in one transaction,
 * so the total is exactly the number of transfers at or below the pinned block. The total is the
 * wallet's stored count (walletTotalSql): one row, or one per token of the filter.
 */
export async function walletTransferTotalAtHead(
  db: Queryable,
  q: { chainId: number; wallet: string; contractAddresses?: readonly string[]; toBlock?: number },
): Promise<WalletTransferTotalAtHead> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const wallet = p.add(hexToBytes(q.wallet));
  const tokens =
    q.contractAddresses && q.contractAddresses.length > 0
      ? p.add(q.contractAddresses.map(hexToBytes))
      : undefined;
  const toBlock = p.add(q.toBlock ?? null);
  const { rows } = await db.query<{ pin: string | null; total: string | null }>(
    `SELECT pin.n AS pin,
            CASE WHEN ${toBlock}::bigint IS NULL OR pin.n IS NULL OR ${toBlock}::bigint >= pin.n THEN
              ${walletTotalSql(chain, wallet, tokens)}
            END AS total
       FROM (SELECT ${latestBlockSql} AS n FROM transfers WHERE chain_id = ${chain}) pin`,
    p.values,
  );
  const r = rows[0];
  return {
    pin: r?.pin == null ? null : Number(r.pin),
    total: r?.total == null ? null : Number(r.total),
  };
}

/** Highest block with a transfer on the chain (primary-key index, one probe); null when none. */
export async function latestTransferBlock(db: Queryable, chainId: number): Promise<number | null> {
  const { rows } = await db.query<{ n: string | null }>(
    `SELECT ${latestBlockSql} AS n FROM transfers WHERE chain_id = $1`,
    [chainId],
  );
  return rows[0]?.n == null ? null : Number(rows[0].n);
}
