import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/** The config version (migration 061) of every stream a matcher evaluates (active or in error). */
export async function loadMatchableStreamVersions(db: Db): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; config_version: string }>(
    `SELECT id, config_version FROM streams WHERE status IN ('active', 'error')`,
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
