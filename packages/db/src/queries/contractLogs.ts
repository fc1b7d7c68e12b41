import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { hexByteaTypes } from './hexByteaTypes.ts';
import { addressIdSql } from './addressIdSql.ts';
import {
  type LogPosition,
  Params,
  type SortOrder,
  blockEndPosSql,
  latestBlockSql,
  posOrderBy,
  rowPositionConditions,
} from './keyset.ts';
import { isoTimestampSql, linesAggSql, pageLines } from './recordLines.ts';
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

/** One log of a page, as PostgreSQL wrote it. */
export interface ContractLogRecord {
  blockNumber: number;
  logIndex: number;
  /**
   * The API's log record (spec 2.3, its fields in its order) as compact JSON: hashes, address
   * and data 0x hex, an absent topic "", integers as JSON integers, the timestamp ISO 8601 UTC
   * with milliseconds.
   */
  json: string;
}

/** As read with hexByteaTypes. */
interface RawPage {
  fetched: number;
  records: string | null;
  head_pin?: string | null;
}

const topic = (n: number) => `coalesce('0x' || encode(topic${n}, 'hex'), '')`;

/** One log as a line of text: `block_number,log_index,` then its JSON record (every column but the topics is NOT NULL). */
const LOG_LINE = `block_number || ',' || log_index || ','
  || '{"transaction_hash":"0x' || encode(transaction_hash, 'hex')
  || '","address":"0x' || encode(address, 'hex')
  || '","block_timestamp":"' || ${isoTimestampSql('block_timestamp')}
  || '","block_number":' || block_number
  || ',"block_hash":"0x' || encode(block_hash, 'hex')
  || '","data":"0x' || encode(data, 'hex')
  || '","topic0":"' || ${topic(0)} || '","topic1":"' || ${topic(1)}
  || '","topic2":"' || ${topic(2)} || '","topic3":"' || ${topic(3)}
  || '","transaction_index":' || transaction_index
  || ',"log_index":' || log_index || '}'`;

/**
 * One page of a contract's logs with one topic0: a range scan of logs_by_address_topic0 (the
 * contract's address id, the first 8 bytes of topic0, pos; the whole topic0 is matched on the row).
 * The page comes back as one text value, a line per log (see LOG_LINE): PostgreSQL writes the
 * records' JSON for less CPU than the client spends parsing a hundred 12-column rows.
 */
export async function findContractLogs(
  db: Queryable,
  q: ContractLogsQuery,
): Promise<{ records: ContractLogRecord[]; hasMore: boolean; pin?: number | null }> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const topic0 = p.add(hexToBytes(q.topic0));
  const conds = [
    `address_id = ${addressIdSql(chain, p.add(hexToBytes(q.address)))}`,
    `substring(topic0 FROM 1 FOR 8) = substring(${topic0}::bytea FROM 1 FOR 8)`,
    `topic0 = ${topic0}`,
    ...rowPositionConditions(p, q),
  ];
  if (q.pinHead) conds.push(`pos < ${blockEndPosSql('(SELECT n FROM pin)')}`);
  const ord = posOrderBy(q.order);
  const sql = `WITH ${q.pinHead ? `pin AS MATERIALIZED (SELECT ${latestBlockSql} AS n FROM logs WHERE chain_id = ${chain}), ` : ''}
     page AS (
       SELECT pos, block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index,
              address, data, topic0, topic1, topic2, topic3
         FROM logs
        WHERE ${conds.join(' AND ')}
        ORDER BY ${ord}
        LIMIT ${p.add(q.limit + 1)}
     )
     SELECT (SELECT count(*) FROM page)::int AS fetched,
            (SELECT ${linesAggSql(LOG_LINE, ord)} FROM page) AS records
            ${q.pinHead ? ', (SELECT n FROM pin) AS head_pin' : ''}`;
  const { rows } = await db.query<RawPage>({
    name: statementName('contract_logs', sql),
    text: sql,
    values: p.values,
    types: hexByteaTypes,
  });
  const r = rows[0];
  const lines = pageLines(r?.records);
  return {
    records: lines.slice(0, q.limit).map((line) => {
      const a = line.indexOf(',');
      const b = line.indexOf(',', a + 1);
      return {
        blockNumber: Number(line.slice(0, a)),
        logIndex: Number(line.slice(a + 1, b)),
        json: line.slice(b + 1),
      };
    }),
    hasMore: (r?.fetched ?? 0) > q.limit,
    pin: q.pinHead ? (r?.head_pin == null ? null : Number(r.head_pin)) : undefined,
  };
}
