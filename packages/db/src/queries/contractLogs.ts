import type pg from 'pg';
import { bytesToHex, hexToBytes, nullableBytesToHex } from '../bytes.ts';
import { type LogPosition, Params, type SortOrder, orderBy, positionConditions } from './keyset.ts';

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

interface RawRow {
  block_number: string;
  log_index: number;
  block_hash: Buffer;
  block_timestamp: Date;
  transaction_hash: Buffer;
  transaction_index: number;
  address: Buffer;
  data: Buffer;
  topic0: Buffer | null;
  topic1: Buffer | null;
  topic2: Buffer | null;
  topic3: Buffer | null;
}

/** One page of a contract's logs with one topic0: a range scan of logs_by_address_topic0. */
export async function findContractLogs(
  db: Queryable,
  q: ContractLogsQuery,
): Promise<{ rows: ContractLogRow[]; hasMore: boolean }> {
  const p = new Params();
  const conds = [
    `chain_id = ${p.add(q.chainId)}`,
    `address = ${p.add(hexToBytes(q.address))}`,
    `topic0 = ${p.add(hexToBytes(q.topic0))}`,
    ...positionConditions(p, q),
  ];
  const { rows } = await db.query<RawRow>(
    `SELECT block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index,
            address, data, topic0, topic1, topic2, topic3
       FROM logs
      WHERE ${conds.join(' AND ')}
      ORDER BY ${orderBy(q.order)}
      LIMIT ${p.add(q.limit + 1)}`,
    p.values,
  );
  return {
    rows: rows.slice(0, q.limit).map((r) => ({
      blockNumber: Number(r.block_number),
      logIndex: r.log_index,
      blockHash: bytesToHex(r.block_hash),
      blockTimestamp: r.block_timestamp,
      transactionHash: bytesToHex(r.transaction_hash),
      transactionIndex: r.transaction_index,
      address: bytesToHex(r.address),
      data: bytesToHex(r.data),
      topic0: nullableBytesToHex(r.topic0),
      topic1: nullableBytesToHex(r.topic1),
      topic2: nullableBytesToHex(r.topic2),
      topic3: nullableBytesToHex(r.topic3),
    })),
    hasMore: rows.length > q.limit,
  };
}

/** Highest block with a log on the chain (primary-key index, one probe); null when none. */
export async function latestLogBlock(db: Queryable, chainId: number): Promise<number | null> {
  const { rows } = await db.query<{ n: string | null }>(
    'SELECT max(block_number) AS n FROM logs WHERE chain_id = $1',
    [chainId],
  );
  return rows[0]?.n == null ? null : Number(rows[0].n);
}
