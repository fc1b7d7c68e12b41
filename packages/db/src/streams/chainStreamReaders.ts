import type { Pool, PoolClient } from 'pg';
import { MATCHABLE } from './streams.ts';

type Db = Pool | PoolClient;

/** A stream a matcher evaluates on one chain: its config version and the block it starts after there. */
export interface ChainStreamKey {
  id: string;
  configVersion: string;
  /** Blocks after this one are the stream's (-1: every block; the chain had no checkpoint when it was stored). */
  startAfter: number;
}

/**
 * The streams a matcher evaluates (active or in error) on `chainId`: what the chain's follower
 * reads to know which blocks a stream can read, and so what to fetch for them.
 */
export async function loadChainStreamKeys(db: Db, chainId: number): Promise<ChainStreamKey[]> {
  const { rows } = await db.query<{ id: string; config_version: string; start_after: string | null }>(
    `SELECT id, config_version, (start_blocks ->> $1::text)::bigint AS start_after
       FROM streams WHERE ${MATCHABLE} AND $1::bigint = ANY(chain_ids)`,
    [chainId],
  );
  return rows.map((r) => ({
    id: r.id,
    configVersion: r.config_version,
    startAfter: r.start_after === null ? -1 : Number(r.start_after),
  }));
}

/** The stored configs of these streams (those that still exist). */
export async function loadStreamConfigs(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; config: Record<string, unknown> }>(
    'SELECT id, config FROM streams WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.config]));
}
