import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { hexByteaTypes } from './hexByteaTypes.ts';
import { type LogPosition, Params, type SortOrder, orderBy, positionConditions } from './keyset.ts';
import { statementName } from './statementName.ts';

type Queryable = Pick<pg.Pool, 'query'>;

export interface ContractLogsQuery {
  chainId: number;
  /** Lower-case hex contract address. */
  address: string;
  /** 32-byte hex. */
  topic0: string;
  fromBlock?: number;
  toBlock?: number;
  order: SortOrder;
  limit: number;
  after?: LogPosition;
  /**
   * First page of a paging session: pin the chain's newest log block in this same statement
   * (one round trip) and keep the page at or below it; the pin comes back as `pin`.
   */
  pinHead?: boolean;
}

export interface ContractLogRow {
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  blockTimestamp: Date;
  transactionHash: string;
  transactionIndex: number;
  address: string;
  data: string;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
}

/** As read with hexByteaTypes: bytea columns arrive as 0x hex. */
interface RawRow {
  block_number: string;
  log_index: number;
  block_hash: string;
  block_timestamp: Date;
  transaction_hash: string;
  transaction_index: number;
  address: string;
  data: string;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
  head_pin?: string | null;
}

/** One page of a contract's logs with one topic0: a range scan of logs_by_address_topic0. */
export async function findContractLogs(
  db: Queryable,
  q: ContractLogsQuery,
): Promise<{ rows: ContractLogRow[]; hasMore: boolean; pin?: number | null }> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const conds = [
    `chain_id = ${chain}`,
    `address = ${p.add(hexToBytes(q.address))}`,
    `topic0 = ${p.add(hexToBytes(q.topic0))}`,
    ...positionConditions(p, q),
  ];
  if (q.pinHead) conds.push('block_number <= (SELECT n FROM pin)');
  const sql = `${q.pinHead ? `WITH pin AS MATERIALIZED (SELECT max(block_number) AS n FROM logs WHERE chain_id = ${chain}) ` : ''}
     SELECT block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index,
            address, data, topic0, topic1, topic2, topic3${q.pinHead ? ', (SELECT n FROM pin) AS head_pin' : ''}
       FROM logs
      WHERE ${conds.join(' AND ')}
      ORDER BY ${orderBy(q.order)}
      LIMIT ${p.add(q.limit + 1)}`;
  const { rows } = await db.query<RawRow>({
    name: statementName('contract_logs', sql),
    text: sql,
    values: p.values,
    types: hexByteaTypes,
  });
  return {
    rows: rows.slice(0, q.limit).map((r) => ({
      blockNumber: Number(r.block_number),
      logIndex: r.log_index,
      blockHash: r.block_hash,
      blockTimestamp: r.block_timestamp,
      transactionHash: r.transaction_hash,
      transactionIndex: r.transaction_index,
      address: r.address,
      data: r.data,
      topic0: r.topic0,
      topic1: r.topic1,
      topic2: r.topic2,
      topic3: r.topic3,
    })),
    hasMore: rows.length > q.limit,
    // An empty page has no pin (and no next page that would need one).
    pin: q.pinHead ? (rows[0]?.head_pin == null ? null : Number(rows[0].head_pin)) : undefined,
  };
}
