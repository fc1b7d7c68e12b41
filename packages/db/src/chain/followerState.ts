import { bytesToHex as hex, hexToBytes as bytes } from '../bytes.ts';
import { withTransaction } from '../withTransaction.ts';
import type { Pool } from 'pg';

export interface FollowerBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** Unix seconds. */
  timestamp: number;
  confirmed: boolean;
}

export interface FollowerState {
  /** The last block whose events Kafka acknowledged; null before the first. */
  checkpoint: { number: number; hash: string } | null;
  /** Block 0's hash of the chain the checkpoint belongs to; null before the first (or when stored before it was). */
  genesisHash: string | null;
  /** Blocks possibly published, oldest first: the recent canonical chain as consumers may have seen it. */
  blocks: FollowerBlock[];
}

export async function loadFollowerState(pool: Pool, chainId: number): Promise<FollowerState> {
  const cp = await pool.query<{ block_number: string; block_hash: Buffer; genesis_hash: Buffer | null }>(
    'SELECT block_number, block_hash, genesis_hash FROM follower_checkpoints WHERE chain_id = $1',
    [chainId],
  );
  const rows = await pool.query<{
    number: string;
    hash: Buffer;
    parent_hash: Buffer;
    timestamp: string;
    confirmed: boolean;
  }>(
    'SELECT number, hash, parent_hash, timestamp, confirmed FROM follower_blocks WHERE chain_id = $1 ORDER BY number',
    [chainId],
  );
  const first = cp.rows[0];
  return {
    checkpoint: first ? { number: Number(first.block_number), hash: hex(first.block_hash) } : null,
    genesisHash: first?.genesis_hash ? hex(first.genesis_hash) : null,
    blocks: rows.rows.map((r) => ({
      number: Number(r.number),
      hash: hex(r.hash),
      parentHash: hex(r.parent_hash),
      timestamp: Number(r.timestamp),
      confirmed: r.confirmed,
    })),
  };
}

/**
 * Records blocks before they are published (an intent): after a crash between the send and the
 * checkpoint, the follower still knows what consumers may have seen and can send `removed` for it.
 */
export async function recordFollowerBlocks(pool: Pool, chainId: number, blocks: readonly FollowerBlock[]) {
  if (blocks.length === 0) return;
  await pool.query(
    `INSERT INTO follower_blocks (chain_id, number, hash, parent_hash, confirmed, timestamp)
     SELECT $1, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::boolean[], $6::bigint[])
     ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash, parent_hash = EXCLUDED.parent_hash,
       confirmed = EXCLUDED.confirmed, timestamp = EXCLUDED.timestamp`,
    [
      chainId,
      blocks.map((b) => b.number),
      blocks.map((b) => bytes(b.hash)),
      blocks.map((b) => bytes(b.parentHash)),
      blocks.map((b) => b.confirmed),
      blocks.map((b) => b.timestamp),
    ],
  );
}

/**
 * What a published batch leaves to record, in one transaction (after Kafka acked it): the blocks
 * whose `confirmed` event went out, and, when the batch published blocks past the checkpoint, the
 * checkpoint (with the genesis hash of its chain) moved to its last block, forgetting blocks older
 * than `keepFrom`.
 */
export async function commitFollowerBatch(
  pool: Pool,
  chainId: number,
  batch: {
    confirmed: readonly number[];
    checkpoint?: { number: number; hash: string; genesisHash: string; keepFrom: number };
  },
) {
  const { confirmed, checkpoint } = batch;
  if (confirmed.length === 0 && !checkpoint) return;
  await withTransaction(pool, async (client) => {
    if (confirmed.length > 0)
      await client.query(
        'UPDATE follower_blocks SET confirmed = true WHERE chain_id = $1 AND number = ANY($2::bigint[])',
        [chainId, confirmed],
      );
    if (!checkpoint) return;
    await client.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash, genesis_hash, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (chain_id) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
         genesis_hash = EXCLUDED.genesis_hash, updated_at = now()`,
      [chainId, checkpoint.number, bytes(checkpoint.hash), bytes(checkpoint.genesisHash)],
    );
    await client.query('DELETE FROM follower_blocks WHERE chain_id = $1 AND number < $2', [
      chainId,
      checkpoint.keepFrom,
    ]);
  });
}

/**
 * After `removed` events for every block above the fork were acked: forgets them and moves the
 * checkpoint back to the fork block (never forward).
 */
export async function rewindFollower(pool: Pool, chainId: number, fork: { number: number; hash: string }) {
  await withTransaction(pool, async (client) => {
    await client.query('DELETE FROM follower_blocks WHERE chain_id = $1 AND number > $2', [
      chainId,
      fork.number,
    ]);
    await client.query(
      `UPDATE follower_checkpoints SET block_number = $2, block_hash = $3, updated_at = now()
       WHERE chain_id = $1 AND block_number > $2`,
      [chainId, fork.number, bytes(fork.hash)],
    );
  });
}

/** Chains a follower has checkpointed: the chains this deployment follows (and has data of). */
export async function listFollowedChainIds(pool: Pool): Promise<number[]> {
  const res = await pool.query<{ chain_id: string }>(
    'SELECT chain_id FROM follower_checkpoints ORDER BY chain_id',
  );
  return res.rows.map((r) => Number(r.chain_id));
}
