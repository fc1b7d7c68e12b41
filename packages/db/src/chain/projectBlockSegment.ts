import type { PoolClient } from 'pg';
import { AddressIds } from './addressIds.ts';
import { type BinaryCopyWriter, LastHexField, copyBinary, encodeFields } from './binaryCopy.ts';
import type { BlockSegment, SegmentBlock } from './chainRows.ts';
import { copyRows } from './copyRows.ts';
import { forgetCheckpointsSql } from './forgetCheckpointsSql.ts';
import { earliestBlocks, markHistoryChanged } from './markHistoryChanged.ts';
import { applySupplyDeltasSql, applyWalletCountsSql, ownerDeltasSql } from './transferDeltasSql.ts';

const ZERO_HEX = '0x0000000000000000000000000000000000000000';

const BLOCK_COLUMNS = ['chain_id', 'number', 'hash', 'parent_hash', 'timestamp', 'confirmed'] as const;

/** The columns logs and transfers both start with: where the row sits in the chain. */
const POSITION_COLUMNS = [
  'chain_id',
  'block_number',
  'log_index',
  'block_hash',
  'block_timestamp',
  'transaction_hash',
  'transaction_index',
] as const;

const LOG_COLUMNS = [
  ...POSITION_COLUMNS,
  'address_id',
  'address',
  'topic0',
  'topic1',
  'topic2',
  'topic3',
  'data',
] as const;

const TRANSFER_COLUMNS = [
  ...POSITION_COLUMNS,
  'token_id',
  'from_id',
  'to_id',
  'token_address',
  'from_address',
  'to_address',
  'value',
] as const;

const STAGING = `
CREATE TEMP TABLE IF NOT EXISTS stage_blocks (LIKE blocks) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_logs (LIKE logs INCLUDING GENERATED) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_transfers (LIKE transfers INCLUDING GENERATED) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_tokens (
  chain_id bigint, address bytea, name text, symbol text, decimals smallint,
  total_supply numeric(78, 0), read_at_block bigint, first_seen_hash bytea) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_kinds (LIKE address_kinds) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_owner_deltas (
  chain_id bigint, token_address bytea, owner_address bytea, delta numeric(78, 0), transfers bigint)
  ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_supply (
  chain_id bigint, token_address bytea, block_number bigint, delta numeric(78, 0)) ON COMMIT DELETE ROWS;
-- Rows an earlier segment of the same transaction staged (commit empties them). DELETE, not
-- TRUNCATE: a TRUNCATE gives each table a new file, every transaction.
DELETE FROM stage_blocks; DELETE FROM stage_logs; DELETE FROM stage_transfers; DELETE FROM stage_tokens;
DELETE FROM stage_kinds; DELETE FROM stage_owner_deltas; DELETE FROM stage_supply;`;

// Transfers are written only to inserted blocks (or to blocks already present, INSERT_TRANSFERS):
// either way the checkpoints above them are stale.
const INSERT_FRESH_BLOCKS = `
WITH ins AS (
  INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, confirmed)
  SELECT chain_id, number, hash, parent_hash, timestamp, confirmed FROM stage_blocks
  ON CONFLICT DO NOTHING
  RETURNING chain_id, number, hash
), stale AS (
  ${forgetCheckpointsSql('ins', 'number')}
)
SELECT chain_id, number, encode(hash, 'hex') AS hash FROM ins`;

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
INSERT INTO logs (${LOG_COLUMNS.join(', ')})
SELECT ${LOG_COLUMNS.map((c) => `s.${c}`).join(', ')} FROM stage_logs s
JOIN blocks b ON b.chain_id = s.chain_id AND b.number = s.block_number AND b.hash = s.block_hash
ON CONFLICT DO NOTHING`;

// Balance, transfer-count and total-supply deltas come from the rows this statement actually
// inserted (RETURNING), so a replayed transfer can never be counted twice. Each party's count
// goes up by one (a transfer to oneself: once), per token and per wallet. The zero address is not
// an owner: its row only counts transfers, its balance stays 0.
const INSERT_TRANSFERS = `
WITH ins AS (
  INSERT INTO transfers (${TRANSFER_COLUMNS.join(', ')})
  SELECT ${TRANSFER_COLUMNS.map((c) => `s.${c}`).join(', ')} FROM stage_transfers s
  JOIN blocks b ON b.chain_id = s.chain_id AND b.number = s.block_number AND b.hash = s.block_hash
  ON CONFLICT DO NOTHING
  RETURNING chain_id, block_number, token_address, from_address, to_address, value
), d AS (${ownerDeltasSql('ins')}
), bal AS (
  INSERT INTO balances AS bl (chain_id, token_address, owner_address, balance, transfer_count)
  SELECT chain_id, token_address, owner, delta, transfers FROM d
  ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE
    SET balance = bl.balance + EXCLUDED.balance, transfer_count = bl.transfer_count + EXCLUDED.transfer_count
  RETURNING 1
), cnt AS (${applyWalletCountsSql('d', 'owner', '+')}
), sup AS (${applySupplyDeltasSql('ins', '+')}
), stale AS (
  ${forgetCheckpointsSql('ins', 'block_number')}
)
SELECT (SELECT count(*) FROM ins)::int AS transfers, (SELECT count(*) FROM bal)::int AS balances`;

// Balance and transfer-count deltas of directly copied transfers, summed in the projector: one
// row per (token, owner); the per-wallet counts from the same rows.
const APPLY_BALANCES = `
WITH bal AS (
  INSERT INTO balances AS bl (chain_id, token_address, owner_address, balance, transfer_count)
  SELECT chain_id, token_address, owner_address, delta, transfers FROM stage_owner_deltas
  ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE
    SET balance = bl.balance + EXCLUDED.balance, transfer_count = bl.transfer_count + EXCLUDED.transfer_count
)${applyWalletCountsSql('stage_owner_deltas', 'owner_address', '+')}`;

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

export interface SegmentResult {
  blocks: number;
  logs: number;
  transfers: number;
}

/**
 * Projects a run of new/confirmed blocks inside the caller's transaction.
 *
 * Blocks this statement newly inserts into `blocks` ("fresh") cannot have any log or transfer row
 * yet: those rows are only ever written together with their block row and deleted with it. Their
 * rows are COPYed (binary format) straight into the indexed tables, and their balance and supply
 * deltas are summed here (every one of their transfers is inserted, exactly once). Rows of blocks
 * that were already there (a replay, a block event seen twice) take the careful path: COPY into
 * session temp tables, then INSERT ... ON CONFLICT DO NOTHING joined with `blocks`, deltas from
 * the rows actually inserted; so a replay stays a no-op.
 */
export async function projectBlockSegment(
  client: PoolClient,
  seg: BlockSegment,
  ids: AddressIds = new AddressIds(),
): Promise<SegmentResult> {
  return (await beginBlockSegment(client, seg, ids)).finish();
}

/** A segment whose new rows are written; finish() writes the rest (same transaction). */
export interface BegunSegment {
  finish(): Promise<SegmentResult>;
}

/**
 * The first part of projectBlockSegment: the block rows (which tells the fresh blocks) and the
 * COPY of the fresh blocks' logs and transfers. It takes no lock another segment's writes could
 * wait for, except on the very blocks it inserts: so a later segment may run it on another
 * connection while an earlier one finishes, and finish() after that one committed. finish()
 * writes confirmations, tokens, account kinds, balance and supply deltas and the rows of the
 * other blocks; these touch rows shared between segments (balances, tokens). A segment that
 * reaches at or below the chain's newest transfer block (a reorg, older blocks) also locks the
 * chain's history version (markHistoryChanged); new blocks above the head never do. `ids` gives
 * the address ids of the logs' contracts and the transfers' tokens and parties (index keys): those it lacks are added in this
 * transaction, so a caller with batches in flight resolves them first, outside (AddressIds.resolve).
 */
export async function beginBlockSegment(
  client: PoolClient,
  seg: BlockSegment,
  ids: AddressIds = new AddressIds(),
): Promise<BegunSegment> {
  // Before any row changes: transfers reaching below the head order themselves against checkpoint computations.
  await markHistoryChanged(client, earliestBlocks(seg.blocks.filter((b) => b.transfers.length > 0)));
  await client.query(STAGING);
  // JIT compilation of these one-off bulk statements costs more than it saves.
  await client.query('SET LOCAL jit = off');
  const headers = seg.blocks.filter((b) => !b.rowsOnly);
  const fresh = new Set<string>();
  let insertedBlocks = 0;
  if (headers.length > 0) {
    await copyBinary(client, 'stage_blocks', BLOCK_COLUMNS, function* (w) {
      for (const b of headers) {
        w.row(6)
          .int8(b.chainId)
          .int8(b.number)
          .hex(b.hash)
          .hex(b.parentHash)
          .timestampSeconds(b.timestamp)
          .bool(b.confirmed);
      }
      yield;
    });
    const inserted = await client.query<{ chain_id: string; number: string; hash: string }>(
      INSERT_FRESH_BLOCKS,
    );
    insertedBlocks = inserted.rowCount ?? 0;
    for (const r of inserted.rows) fresh.add(`${r.chain_id}:${r.number}:0x${r.hash}`);
  }

  const isFresh = (b: SegmentBlock) => !b.rowsOnly && fresh.has(`${b.chainId}:${b.number}:${b.hash}`);
  const withRows = (b: SegmentBlock) => b.logs.length > 0 || b.transfers.length > 0;
  let freshBlocks = seg.blocks.filter((b) => withRows(b) && isFresh(b));
  const staleBlocks = seg.blocks.filter((b) => withRows(b) && !isFresh(b));
  let logs = 0;
  let transfers = 0;
  if (freshBlocks.length > 0) {
    const logCount = count(freshBlocks, 'logs');
    const transferCount = count(freshBlocks, 'transfers');
    // Ids of new addresses are written in this transaction unless the caller resolved them before
    // (the projector does, outside its transactions: see AddressIds.resolve).
    await ids.resolveBlocks(client, freshBlocks);
    // Rows written by something else than this projector would break the invariant above: then
    // everything goes the careful way.
    await client.query('SAVEPOINT fresh_rows');
    try {
      if (logCount > 0) await copyBinary(client, 'logs', LOG_COLUMNS, (w) => writeLogs(w, freshBlocks, ids));
      if (transferCount > 0) {
        await copyBinary(client, 'transfers', TRANSFER_COLUMNS, (w) => writeTransfers(w, freshBlocks, ids));
      }
      await client.query('RELEASE SAVEPOINT fresh_rows');
      logs += logCount;
      transfers += transferCount;
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await client.query('ROLLBACK TO SAVEPOINT fresh_rows');
      for (const b of freshBlocks) staleBlocks.push(b);
      freshBlocks = [];
    }
  }

  return {
    async finish() {
      if (headers.length > 0) await client.query(CONFIRM_BLOCKS);
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
            { hex: t.address },
            t.name,
            t.symbol,
            t.decimals,
            t.totalSupply,
            t.readAtBlock,
            { hex: t.firstSeenHash },
          ]),
        );
        await client.query(INSERT_TOKENS);
      }
      if (seg.addressKinds.length > 0) {
        await copyRows(
          client,
          'stage_kinds',
          ['chain_id', 'address', 'is_contract'],
          seg.addressKinds.map((k) => [k.chainId, { hex: k.address }, k.isContract]),
        );
        await client.query(INSERT_KINDS);
      }
      // Supply deltas need the token rows (first seen in this segment, perhaps): after INSERT_TOKENS.
      if (count(freshBlocks, 'transfers') > 0) await applyDeltas(client, freshBlocks);
      if (staleBlocks.length > 0) await ids.resolveBlocks(client, staleBlocks);
      if (staleBlocks.length > 0 && count(staleBlocks, 'logs') > 0) {
        await copyBinary(client, 'stage_logs', LOG_COLUMNS, (w) => writeLogs(w, staleBlocks, ids));
        logs += (await client.query(INSERT_LOGS)).rowCount ?? 0;
      }
      if (staleBlocks.length > 0 && count(staleBlocks, 'transfers') > 0) {
        await copyBinary(client, 'stage_transfers', TRANSFER_COLUMNS, (w) =>
          writeTransfers(w, staleBlocks, ids),
        );
        const res = await client.query<{ transfers: number }>(INSERT_TRANSFERS);
        transfers += res.rows[0]?.transfers ?? 0;
      }
      return { blocks: insertedBlocks, logs, transfers };
    },
  };
}

function count(blocks: readonly SegmentBlock[], rows: 'logs' | 'transfers'): number {
  let n = 0;
  for (const b of blocks) n += b[rows].length;
  return n;
}

/** The fields every row of a block repeats, encoded once: (chain_id, block_number) and (block_hash, block_timestamp). */
function blockFields(b: SegmentBlock): [Buffer, Buffer] {
  return [
    encodeFields((w) => w.int8(b.chainId).int8(b.number)),
    encodeFields((w) => w.hex(b.hash).timestampSeconds(b.timestamp)),
  ];
}

/**
 * Rows in LOG_COLUMNS order; yields every thousand rows so that chunks stream out. Consecutive
 * logs often share a transaction, a contract and leading topics: those fields are copied from
 * the previous row's encoding when equal.
 */
function* writeLogs(w: BinaryCopyWriter, blocks: readonly SegmentBlock[], ids: AddressIds): Generator<void> {
  const txHash = new LastHexField();
  const address = new LastHexField();
  const topics = [new LastHexField(), new LastHexField(), new LastHexField(), new LastHexField()];
  const data = new LastHexField();
  let n = 0;
  for (const b of blocks) {
    const [chainAndNumber, hashAndTime] = blockFields(b);
    for (const l of b.logs) {
      w.row(14).raw(chainAndNumber).int4(l.logIndex).raw(hashAndTime);
      w.hexRepeated(l.transactionHash, txHash).int4(l.transactionIndex);
      w.int4(ids.id(b.chainId, l.address)).hexRepeated(l.address, address);
      const t = l.topics;
      for (let i = 0; i < 4; i++) {
        const topic = t[i];
        if (topic === undefined) w.null();
        else w.hexRepeated(topic, topics[i]!);
      }
      w.hexRepeated(l.data, data);
      if (++n % 1000 === 0) yield;
    }
  }
  yield;
}

/** Rows in TRANSFER_COLUMNS order (repeated fields as in writeLogs). */
function* writeTransfers(
  w: BinaryCopyWriter,
  blocks: readonly SegmentBlock[],
  ids: AddressIds,
): Generator<void> {
  const txHash = new LastHexField();
  const token = new LastHexField();
  const from = new LastHexField();
  const to = new LastHexField();
  let n = 0;
  for (const b of blocks) {
    const [chainAndNumber, hashAndTime] = blockFields(b);
    for (const t of b.transfers) {
      w.row(14).raw(chainAndNumber).int4(t.logIndex).raw(hashAndTime);
      w.hexRepeated(t.transactionHash, txHash).int4(t.transactionIndex);
      w.int4(ids.id(b.chainId, t.token)).int4(ids.id(b.chainId, t.from)).int4(ids.id(b.chainId, t.to));
      w.hexRepeated(t.token, token);
      w.hexRepeated(t.from, from).hexRepeated(t.to, to).numeric(t.value);
      if (++n % 1000 === 0) yield;
    }
  }
  yield;
}

interface OwnerDelta {
  delta: bigint;
  transfers: number;
}

/**
 * Balance and transfer-count deltas per (token, owner) and supply deltas (mints minus burns) per
 * token and block, of transfers all inserted, summed in memory and applied with one statement
 * each. The zero address gets counts but no balance; a transfer to oneself counts once.
 */
async function applyDeltas(client: PoolClient, blocks: readonly SegmentBlock[]) {
  // chain id -> token -> owner -> delta: nested maps, no composite string keys per transfer.
  const owners = new Map<number, Map<string, Map<string, OwnerDelta>>>();
  const supply: { chainId: number; token: string; block: number; delta: bigint }[] = [];
  for (const b of blocks) {
    let byToken = owners.get(b.chainId);
    if (!byToken) {
      byToken = new Map();
      owners.set(b.chainId, byToken);
    }
    const blockSupply = new Map<string, bigint>();
    for (const t of b.transfers) {
      let byOwner = byToken.get(t.token);
      if (!byOwner) {
        byOwner = new Map();
        byToken.set(t.token, byOwner);
      }
      const value = BigInt(t.value);
      const mint = t.from === ZERO_HEX;
      const burn = t.to === ZERO_HEX;
      if (t.to === t.from) {
        add(byOwner, t.from, 0n);
      } else {
        add(byOwner, t.from, mint ? 0n : -value);
        add(byOwner, t.to, burn ? 0n : value);
      }
      if (mint !== burn) {
        blockSupply.set(t.token, (blockSupply.get(t.token) ?? 0n) + (mint ? value : -value));
      }
    }
    for (const [token, delta] of blockSupply)
      supply.push({ chainId: b.chainId, token, block: b.number, delta });
  }
  const deltas: Delta[] = [];
  for (const [chainId, byToken] of owners) {
    for (const [token, byOwner] of byToken) {
      for (const [owner, d] of byOwner) deltas.push({ chainId, token, owner, d });
    }
  }
  if (deltas.length > 0) {
    const columns = ['chain_id', 'token_address', 'owner_address', 'delta', 'transfers'];
    await copyDeltas(client, 'stage_owner_deltas', columns, deltas);
    await client.query(APPLY_BALANCES);
  }
  if (supply.length > 0) {
    await copyBinary(
      client,
      'stage_supply',
      ['chain_id', 'token_address', 'block_number', 'delta'],
      function* (w) {
        for (const s of supply) w.row(4).int8(s.chainId).hex(s.token).int8(s.block).numeric(s.delta);
        yield;
      },
    );
    await client.query(APPLY_SUPPLY);
  }
}

interface Delta {
  chainId: number;
  token: string;
  owner: string;
  d: OwnerDelta;
}

async function copyDeltas(client: PoolClient, table: string, columns: string[], deltas: Delta[]) {
  await copyBinary(client, table, columns, function* (w) {
    const lastToken = new LastHexField();
    for (let i = 0; i < deltas.length; i++) {
      const { chainId, token, owner, d } = deltas[i]!;
      w.row(5).int8(chainId).hexRepeated(token, lastToken).hex(owner).numeric(d.delta).int8(d.transfers);
      if ((i + 1) % 1000 === 0) yield;
    }
    yield;
  });
}

function add(byOwner: Map<string, OwnerDelta>, owner: string, delta: bigint) {
  const d = byOwner.get(owner);
  if (d) {
    d.delta += delta;
    d.transfers += 1;
  } else byOwner.set(owner, { delta, transfers: 1 });
}
