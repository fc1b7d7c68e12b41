import type { Pool, PoolClient } from 'pg';
import { MATCHABLE } from './streams.ts';

type Db = Pool | PoolClient;

/** The config version (migration 061) of every stream a matcher evaluates (active or in error). */
export async function loadMatchableStreamVersions(db: Db): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; config_version: string }>(
    `SELECT id, config_version FROM streams WHERE ${MATCHABLE}`,
  );
  return new Map(rows.map((r) => [r.id, r.config_version]));
}

/** One stream's config version (undefined: no such stream). */
export async function getStreamVersion(db: Db, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ config_version: string }>(
    'SELECT config_version FROM streams WHERE id = $1',
    [id],
  );
  return rows[0]?.config_version;
}

/**
 * The version of the whole stream set (migration 066): every change a matcher evaluates moves it,
 * in the change's own transaction, so when it reads V every change up to V has committed.
 */
export async function getStreamSetVersion(db: Db): Promise<bigint> {
  const { rows } = await db.query<{ version: string }>('SELECT version FROM stream_set_version');
  return BigInt(rows[0]?.version ?? 0);
}

/** The streams (any status) whose last evaluated change came after set version `since`. */
export async function findStreamsChangedSince(db: Db, since: bigint): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM streams WHERE set_version > $1', [
    since.toString(),
  ]);
  return rows.map((r) => r.id);
}
