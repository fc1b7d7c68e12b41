import type { Pool } from '@tributary/db';
import type { PublicClient } from 'viem';
import type { Pipeline } from './startPipeline.ts';
import { waitFor } from './waitFor.ts';

const CHAIN_ID = 31337;

/** The follower's durable checkpoint (-1 before its first one). */
export async function followerCheckpoint(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ block_number: string }>(
    'SELECT block_number FROM follower_checkpoints WHERE chain_id = $1',
    [CHAIN_ID],
  );
  return rows[0] ? Number(rows[0].block_number) : -1;
}

/** The highest block the projector wrote (-1 when none). */
export async function projectedHead(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string | null }>(
    'SELECT max(number) AS n FROM blocks WHERE chain_id = $1',
    [CHAIN_ID],
  );
  return rows[0]?.n == null ? -1 : Number(rows[0].n);
}

/** Waits until the query tables hold the node's current head block, with the node's hash. */
export async function waitProjected(pipeline: Pipeline, client: PublicClient, timeoutMs = 90_000) {
  const head = await client.getBlock({ blockTag: 'latest' });
  await waitFor(
    `block ${head.number} (${head.hash}) to be projected`,
    async () => {
      const { rows } = await pipeline.pool.query<{ hash: Buffer }>(
        'SELECT hash FROM blocks WHERE chain_id = $1 AND number = $2',
        [CHAIN_ID, head.number.toString()],
      );
      return rows[0] !== undefined && `0x${rows[0].hash.toString('hex')}` === head.hash;
    },
    { timeoutMs, diagnostics: pipeline.diagnostics },
  );
  return head;
}
