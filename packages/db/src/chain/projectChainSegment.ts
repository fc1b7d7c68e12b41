import type { PoolClient } from 'pg';
import type { ChainSegment } from './chainRows.ts';
import { copyRows } from './copyRows.ts';

const ZERO = `'\\x0000000000000000000000000000000000000000'::bytea`;

const STAGING = `
CREATE TEMP TABLE IF NOT EXISTS stage_blocks (LIKE blocks) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_logs (LIKE logs) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_transfers (LIKE transfers) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_tokens (
  chain_id bigint, address bytea, name text, symbol text, decimals smallint,
  total_supply numeric(78, 0), read_at_block bigint, first_seen_hash bytea) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_kinds (LIKE address_kinds) ON COMMIT DELETE ROWS;
TRUNCATE stage_blocks, stage_logs, stage_transfers, stage_tokens, stage_kinds;`;

// Rows are written only for blocks present in `blocks` with the same hash: a replayed event of an
// orphaned block (its number now held by the canonical block) writes nothing, so replays are no-ops.
const INSERT_BLOCKS = `
INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, confirmed)
SELECT chain_id, number, hash, parent_hash, timestamp, confirmed FROM stage_blocks
ON CONFLICT DO NOTHING`;

const CONFIRM_BLOCKS = `
UPDATE blocks b SET confirmed = true FROM stage_blocks s
WHERE s.confirmed AND NOT b.confirmed AND b.chain_id = s.chain_id AND b.number = s.number AND b.hash = s.hash`;

const INSERT_TOKENS = `
INSERT INTO tokens (chain_id, address, name, symbol, decimals, total_supply, read_at_block, first_seen_hash)
SELECT s.chain_id, s.address, s.name, s.symbol, s.decimals, s.total_supply, s.read_at_block, s.first_seen_hash
FROM stage_tokens s JOIN blocks b ON b.chain_id = s.chain_id AND b.hash = s.first_seen_hash
ON CONFLICT DO NOTHING`;

const INSERT_KINDS = `
INSERT INTO address_kinds (chain_id, address, is_contract)
SELECT chain_id, address, is_contract FROM stage_kinds ON CONFLICT DO NOTHING`;

const INSERT_LOGS = `
INSERT INTO logs SELECT s.* FROM stage_logs s
JOIN blocks b ON b.chain_id = s.chain_id AND b.number = s.block_number AND b.hash = s.block_hash
ON CONFLICT DO NOTHING`;

// Balance and total-supply deltas come from the rows this statement actually inserted (RETURNING),
// so a replayed transfer can never be counted twice. The zero address is not an owner.
const INSERT_TRANSFERS = `
WITH ins AS (
  INSERT INTO transfers SELECT s.* FROM stage_transfers s
  JOIN blocks b ON b.chain_id = s.chain_id AND b.number = s.block_number AND b.hash = s.block_hash
  ON CONFLICT DO NOTHING
  RETURNING chain_id, block_number, token_address, from_address, to_address, value
), bal AS (
  INSERT INTO balances AS bl (chain_id, token_address, owner_address, balance)
  SELECT chain_id, token_address, owner, sum(delta) FROM (
    SELECT chain_id, token_address, from_address AS owner, -value AS delta FROM ins WHERE from_address <> ${ZERO}
    UNION ALL
    SELECT chain_id, token_address, to_address, value FROM ins WHERE to_address <> ${ZERO}
  ) d GROUP BY chain_id, token_address, owner
  ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE SET balance = bl.balance + EXCLUDED.balance
  RETURNING 1
), sup AS (
  UPDATE tokens t SET total_supply = t.total_supply + d.delta
  FROM (
    SELECT i.chain_id, i.token_address,
      sum(CASE WHEN i.from_address = ${ZERO} THEN i.value ELSE 0 END)
        - sum(CASE WHEN i.to_address = ${ZERO} THEN i.value ELSE 0 END) AS delta
    FROM ins i JOIN tokens k ON k.chain_id = i.chain_id AND k.address = i.token_address
    WHERE i.block_number > k.read_at_block AND (i.from_address = ${ZERO} OR i.to_address = ${ZERO})
    GROUP BY i.chain_id, i.token_address
  ) d
  WHERE t.chain_id = d.chain_id AND t.address = d.token_address AND t.total_supply IS NOT NULL
  RETURNING 1
)
SELECT (SELECT count(*) FROM ins)::int AS transfers, (SELECT count(*) FROM bal)::int AS balances`;

export interface SegmentResult {
  blocks: number;
  logs: number;
  transfers: number;
}

/**
 * Projects a run of new/confirmed blocks inside the caller's transaction: COPY into session temp
 * tables, then set-based INSERT ... ON CONFLICT DO NOTHING into the query tables.
 */
export async function projectChainSegment(client: PoolClient, seg: ChainSegment): Promise<SegmentResult> {
  await client.query(STAGING);
  const iso = (s: number) => new Date(s * 1000).toISOString();
  const hex = (h: string) => ({ hex: h });
  await copyRows(
    client,
    'stage_blocks',
    ['chain_id', 'number', 'hash', 'parent_hash', 'timestamp', 'confirmed'],
    seg.blocks.map((b) => [
      b.chainId,
      b.number,
      hex(b.hash),
      hex(b.parentHash),
      iso(b.timestamp),
      b.confirmed,
    ]),
  );
  if (seg.tokens.length > 0) {
    await copyRows(
      client,
      'stage_tokens',
      [
        'chain_id',
        'address',
        'name',
        'symbol',
        'decimals',
        'total_supply',
        'read_at_block',
        'first_seen_hash',
      ],
      seg.tokens.map((t) => [
        t.chainId,
        hex(t.address),
        t.name,
        t.symbol,
        t.decimals,
        t.totalSupply,
        t.readAtBlock,
        hex(t.firstSeenHash),
      ]),
    );
  }
  if (seg.addressKinds.length > 0) {
    await copyRows(
      client,
      'stage_kinds',
      ['chain_id', 'address', 'is_contract'],
      seg.addressKinds.map((k) => [k.chainId, hex(k.address), k.isContract]),
    );
  }
  if (seg.logs.length > 0) {
    await copyRows(client, 'stage_logs', LOG_COLUMNS, logCells(seg));
  }
  if (seg.transfers.length > 0) {
    await copyRows(client, 'stage_transfers', TRANSFER_COLUMNS, transferCells(seg));
  }
  const blocks = (await client.query(INSERT_BLOCKS)).rowCount ?? 0;
  await client.query(CONFIRM_BLOCKS);
  if (seg.tokens.length > 0) await client.query(INSERT_TOKENS);
  if (seg.addressKinds.length > 0) await client.query(INSERT_KINDS);
  const logs = seg.logs.length > 0 ? ((await client.query(INSERT_LOGS)).rowCount ?? 0) : 0;
  let transfers = 0;
  if (seg.transfers.length > 0) {
    const res = await client.query<{ transfers: number }>(INSERT_TRANSFERS);
    transfers = res.rows[0]?.transfers ?? 0;
  }
  return { blocks, logs, transfers };
}

export const LOG_COLUMNS = [
  'chain_id',
  'block_number',
  'log_index',
  'block_hash',
  'block_timestamp',
  'transaction_hash',
  'transaction_index',
  'address',
  'topic0',
  'topic1',
  'topic2',
  'topic3',
  'data',
] as const;

export const TRANSFER_COLUMNS = [
  'chain_id',
  'block_number',
  'log_index',
  'block_hash',
  'block_timestamp',
  'transaction_hash',
  'transaction_index',
  'token_address',
  'from_address',
  'to_address',
  'value',
] as const;

export function* logCells(seg: Pick<ChainSegment, 'logs'>) {
  for (const l of seg.logs) {
    const t = (i: number) => (l.topics[i] === undefined ? null : { hex: l.topics[i]! });
    yield [
      l.chainId,
      l.blockNumber,
      l.logIndex,
      { hex: l.blockHash },
      new Date(l.blockTimestamp * 1000).toISOString(),
      { hex: l.transactionHash },
      l.transactionIndex,
      { hex: l.address },
      t(0),
      t(1),
      t(2),
      t(3),
      { hex: l.data },
    ] as const;
  }
}

export function* transferCells(seg: Pick<ChainSegment, 'transfers'>) {
  for (const x of seg.transfers) {
    yield [
      x.chainId,
      x.blockNumber,
      x.logIndex,
      { hex: x.blockHash },
      new Date(x.blockTimestamp * 1000).toISOString(),
      { hex: x.transactionHash },
      x.transactionIndex,
      { hex: x.token },
      { hex: x.from },
      { hex: x.to },
      x.value,
    ] as const;
  }
}
