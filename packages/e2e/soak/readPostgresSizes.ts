import type { Pool } from '@tributary/db';
import type { PostgresSizes } from './soakSample.ts';

// Catalog reads of the soak's own database, outside any table group of @tributary/db: the
// project's SQL stays there, this only measures it. A partition counts in its root (delivery
// retention partitions the delivery tables).
const SIZES = `
  SELECT coalesce(pg_partition_root(c.oid), c.oid)::regclass::text AS name,
         c.relkind IN ('i', 'I') AS is_index,
         coalesce(pg_partition_root(x.indrelid), x.indrelid)::regclass::text AS of_table,
         sum(CASE WHEN c.relkind IN ('i', 'I') THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END)::bigint AS bytes
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_index x ON x.indexrelid = c.oid
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'i', 'I')
  GROUP BY 1, 2, 3`;

/** Each table's and index's size, the database's, pg_wal's, and the WAL written since `previous`. */
export async function readPostgresSizes(
  pool: Pool,
  previous: { lsn: string; atMs: number } | null,
): Promise<{ sizes: PostgresSizes; lsn: string; atMs: number }> {
  const rels = await pool.query<{ name: string; is_index: boolean; of_table: string | null; bytes: string }>(
    SIZES,
  );
  const totals = await pool.query<{ db: string; wal_dir: string; lsn: string; written: string | null }>(
    `SELECT pg_database_size(current_database())::bigint AS db,
            (SELECT coalesce(sum(size), 0) FROM pg_ls_waldir())::bigint AS wal_dir,
            pg_current_wal_lsn()::text AS lsn,
            pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS written`,
    [previous?.lsn ?? '0/0'],
  );
  const t = totals.rows[0]!;
  const atMs = Date.now();
  const tables: Record<string, number> = {};
  const indexes: PostgresSizes['indexes'] = {};
  for (const r of rels.rows) {
    if (r.is_index) indexes[r.name] = { table: r.of_table ?? '?', bytes: Number(r.bytes) };
    else tables[r.name] = Number(r.bytes);
  }
  return {
    sizes: {
      databaseBytes: Number(t.db),
      tables,
      indexes,
      walDirBytes: Number(t.wal_dir),
      walWrittenPerSecond: previous ? Number(t.written) / ((atMs - previous.atMs) / 1000) : null,
    },
    lsn: t.lsn,
    atMs,
  };
}

/** What bounds pg_wal between checkpoints: max_wal_size plus wal_keep_size. */
export async function readWalBound(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>(
    `SELECT sum(setting::bigint * 1024 * 1024)::bigint AS bytes FROM pg_settings
     WHERE name IN ('max_wal_size', 'wal_keep_size') AND unit = 'MB'`,
  );
  return Number(rows[0]?.bytes ?? 0);
}
