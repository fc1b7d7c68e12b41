import type { PoolClient } from 'pg';
import type { ChainSegment, LogRow, TransferRow } from './chainRows.ts';
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
CREATE TEMP TABLE IF NOT EXISTS stage_owner_deltas (
  chain_id bigint, token_address bytea, owner_address bytea, delta numeric(78, 0), transfers bigint)
  ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_supply (
  chain_id bigint, token_address bytea, block_number bigint, delta numeric(78, 0)) ON COMMIT DELETE ROWS;
TRUNCATE stage_blocks, stage_logs, stage_transfers, stage_tokens, stage_kinds, stage_owner_deltas, stage_supply;`;

// Rows are written only for blocks present in `blocks` with the same hash: a replayed event of an
// orphaned block (its number now held by the canonical block) writes nothing, so replays are no-ops.
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

// Balance, transfer-count and total-supply deltas come from the rows this statement actually
// inserted (RETURNING), so a replayed transfer can never be counted twice. Each party's count
// goes up by one (a transfer to oneself: once). The zero address is not an owner: its row only
// counts transfers, its balance stays 0.
const INSERT_TRANSFERS = `
WITH ins AS (
  INSERT INTO transfers SELECT s.* FROM stage_transfers s
  JOIN blocks b ON b.chain_id = s.chain_id AND b.number = s.block_number AND b.hash = s.block_hash
  ON CONFLICT DO NOTHING
  RETURNING chain_id, block_number, token_address, from_address, to_address, value
), bal AS (
  INSERT INTO balances AS bl (chain_id, token_address, owner_address, balance, transfer_count)
  SELECT chain_id, token_address, owner, sum(delta), count(*) FROM (
    SELECT chain_id, token_address, from_address AS owner,
           CASE WHEN from_address = ${ZERO} OR from_address = to_address THEN 0 ELSE -value END AS delta FROM ins
    UNION ALL
    SELECT chain_id, token_address, to_address, CASE WHEN to_address = ${ZERO} THEN 0 ELSE value END
      FROM ins WHERE to_address <> from_address
  ) d GROUP BY chain_id, token_address, owner
  ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE
    SET balance = bl.balance + EXCLUDED.balance, transfer_count = bl.transfer_count + EXCLUDED.transfer_count
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

const INSERT_FRESH_BLOCKS = `
INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, confirmed)
SELECT chain_id, number, hash, parent_hash, timestamp, confirmed FROM stage_blocks
ON CONFLICT DO NOTHING
RETURNING chain_id, number, encode(hash, 'hex') AS hash`;

// Balance and transfer-count deltas of directly copied transfers, summed in the projector: one
// row per (token, owner).
const APPLY_BALANCES = `
INSERT INTO balances AS bl (chain_id, token_address, owner_address, balance, transfer_count)
SELECT chain_id, token_address, owner_address, delta, transfers FROM stage_owner_deltas
ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE
  SET balance = bl.balance + EXCLUDED.balance, transfer_count = bl.transfer_count + EXCLUDED.transfer_count`;

// Mints minus burns per token and block; only blocks after the token's metadata read count.
const APPLY_SUPPLY = `
UPDATE tokens t SET total_supply = t.total_supply + d.delta
FROM (
  SELECT s.chain_id, s.token_address, sum(s.delta) AS delta
  FROM stage_supply s JOIN tokens k ON k.chain_id = s.chain_id AND k.address = s.token_address
  WHERE s.block_number > k.read_at_block
  GROUP BY s.chain_id, s.token_address
) d
WHERE t.chain_id = d.chain_id AND t.address = d.token_address AND t.total_supply IS NOT NULL`;

const ZERO_HEX = '0x0000000000000000000000000000000000000000';

/**
 * Projects a run of new/confirmed blocks inside the caller's transaction.
 *
 * Blocks this statement newly inserts into `blocks` ("fresh") cannot have any log or transfer row
 * yet: those rows are only ever written together with their block row and deleted with it. Their
 * rows are COPYed straight into the indexed tables, and their balance and supply deltas are summed
 * here (every one of their transfers is inserted, exactly once). Rows of blocks that were already
 * there (a replay, a block event seen twice) take the careful path: COPY into session temp tables,
 * then INSERT ... ON CONFLICT DO NOTHING joined with `blocks`, deltas from the rows actually
 * inserted; so a replay stays a no-op.
 */
export async function projectChainSegment(client: PoolClient, seg: ChainSegment): Promise<SegmentResult> {
  await client.query(STAGING);
  // JIT compilation of these one-off bulk statements costs more than it saves.
  await client.query('SET LOCAL jit = off');
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
  const inserted = await client.query<{ chain_id: string; number: string; hash: string }>(
    INSERT_FRESH_BLOCKS,
  );
  const fresh = new Set(inserted.rows.map((r) => `${r.chain_id}:${r.number}:0x${r.hash}`));
  await client.query(CONFIRM_BLOCKS);
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
    await client.query(INSERT_TOKENS);
  }
  if (seg.addressKinds.length > 0) {
    await copyRows(
      client,
      'stage_kinds',
      ['chain_id', 'address', 'is_contract'],
      seg.addressKinds.map((k) => [k.chainId, hex(k.address), k.isContract]),
    );
    await client.query(INSERT_KINDS);
  }

  const isFresh = (r: { chainId: number; blockNumber: number; blockHash: string }) =>
    fresh.has(`${r.chainId}:${r.blockNumber}:${r.blockHash}`);
  const freshLogs = seg.logs.filter(isFresh);
  const freshTransfers = seg.transfers.filter(isFresh);
  const staleLogs: LogRow[] = freshLogs.length === seg.logs.length ? [] : seg.logs.filter((l) => !isFresh(l));
  const staleTransfers: TransferRow[] =
    freshTransfers.length === seg.transfers.length ? [] : seg.transfers.filter((t) => !isFresh(t));

  let logs = 0;
  let transfers = 0;
  if (freshLogs.length > 0 || freshTransfers.length > 0) {
    // Rows written by something else than this projector would break the invariant above: then
    // everything goes the careful way.
    await client.query('SAVEPOINT fresh_rows');
    try {
      if (freshLogs.length > 0) await copyRows(client, 'logs', LOG_COLUMNS, logCells({ logs: freshLogs }));
      if (freshTransfers.length > 0) {
        await copyRows(client, 'transfers', TRANSFER_COLUMNS, transferCells({ transfers: freshTransfers }));
        await applyDeltas(client, freshTransfers);
      }
      await client.query('RELEASE SAVEPOINT fresh_rows');
      logs += freshLogs.length;
      transfers += freshTransfers.length;
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await client.query('ROLLBACK TO SAVEPOINT fresh_rows');
      for (const l of freshLogs) staleLogs.push(l);
      for (const t of freshTransfers) staleTransfers.push(t);
    }
  }
  if (staleLogs.length > 0) {
    await copyRows(client, 'stage_logs', LOG_COLUMNS, logCells({ logs: staleLogs }));
    logs += (await client.query(INSERT_LOGS)).rowCount ?? 0;
  }
  if (staleTransfers.length > 0) {
    await copyRows(client, 'stage_transfers', TRANSFER_COLUMNS, transferCells({ transfers: staleTransfers }));
    const res = await client.query<{ transfers: number }>(INSERT_TRANSFERS);
    transfers += res.rows[0]?.transfers ?? 0;
  }
  return { blocks: inserted.rowCount ?? 0, logs, transfers };
}

/**
 * Balance and transfer-count deltas per (token, owner) and supply deltas (mints minus burns) per
 * token and block, of transfers all inserted. The zero address gets counts but no balance.
 */
async function applyDeltas(client: PoolClient, rows: readonly TransferRow[]) {
  const balances = new Map<
    string,
    { chainId: number; token: string; owner: string; delta: bigint; transfers: number }
  >();
  const supply = new Map<string, { chainId: number; token: string; block: number; delta: bigint }>();
  const add = (chainId: number, token: string, owner: string, delta: bigint) => {
    const key = `${chainId}:${token}:${owner}`;
    const b = balances.get(key);
    if (b) {
      b.delta += delta;
      b.transfers += 1;
    } else balances.set(key, { chainId, token, owner, delta, transfers: 1 });
  };
  for (const t of rows) {
    const value = BigInt(t.value);
    const mint = t.from === ZERO_HEX;
    const burn = t.to === ZERO_HEX;
    if (t.to === t.from) {
      // A transfer to oneself counts once and leaves the balance as it was.
      add(t.chainId, t.token, t.from, 0n);
    } else {
      add(t.chainId, t.token, t.from, mint ? 0n : -value);
      add(t.chainId, t.token, t.to, burn ? 0n : value);
    }
    if (mint || burn) {
      const key = `${t.chainId}:${t.token}:${t.blockNumber}`;
      const delta = (mint ? value : 0n) - (burn ? value : 0n);
      const s = supply.get(key);
      if (s) s.delta += delta;
      else supply.set(key, { chainId: t.chainId, token: t.token, block: t.blockNumber, delta });
    }
  }
  if (balances.size > 0) {
    await copyRows(
      client,
      'stage_owner_deltas',
      ['chain_id', 'token_address', 'owner_address', 'delta', 'transfers'],
      mapIter(balances.values(), (b) => [
        b.chainId,
        { hex: b.token },
        { hex: b.owner },
        b.delta,
        b.transfers,
      ]),
    );
    await client.query(APPLY_BALANCES);
  }
  if (supply.size > 0) {
    await copyRows(
      client,
      'stage_supply',
      ['chain_id', 'token_address', 'block_number', 'delta'],
      mapIter(supply.values(), (s) => [s.chainId, { hex: s.token }, s.block, s.delta]),
    );
    await client.query(APPLY_SUPPLY);
  }
}

function* mapIter<T, R>(items: Iterable<T>, fn: (t: T) => R): Generator<R> {
  for (const t of items) yield fn(t);
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
  const iso = isoCache();
  for (const l of seg.logs) {
    const t = (i: number) => (l.topics[i] === undefined ? null : { hex: l.topics[i]! });
    yield [
      l.chainId,
      l.blockNumber,
      l.logIndex,
      { hex: l.blockHash },
      iso(l.blockTimestamp),
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
  const iso = isoCache();
  for (const x of seg.transfers) {
    yield [
      x.chainId,
      x.blockNumber,
      x.logIndex,
      { hex: x.blockHash },
      iso(x.blockTimestamp),
      { hex: x.transactionHash },
      x.transactionIndex,
      { hex: x.token },
      { hex: x.from },
      { hex: x.to },
      x.value,
    ] as const;
  }
}

/** Rows of one block share a timestamp: format it once. */
function isoCache(): (seconds: number) => string {
  let last = Number.NaN;
  let text = '';
  return (seconds) => {
    if (seconds !== last) {
      last = seconds;
      text = new Date(seconds * 1000).toISOString();
    }
    return text;
  };
}
