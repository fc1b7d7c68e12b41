import type { Pool } from '@tributary/db';

/**
 * PostgreSQL's cumulative activity counters at one moment: checkpoints and who wrote buffers
 * (pg_stat_bgwriter, or pg_stat_checkpointer from 17 on), the database's block reads and temp
 * files (pg_stat_database), each table's autovacuum count, dead tuples and updates, HOT ones
 * among them (pg_stat_user_tables, a partition under its own name), and the vacuums running now
 * (pg_stat_progress_vacuum).
 */
export interface PostgresCounters {
  atMs: number;
  /** The server's block size (block_size): what one buffer or block read is in bytes. */
  blockBytes: number;
  checkpointsTimed: number;
  checkpointsRequested: number;
  /** Time checkpoints spent writing and syncing files, ms. */
  checkpointWriteMs: number;
  checkpointSyncMs: number;
  /** Buffers written by checkpoints, by the background writer, and by backends themselves. */
  buffersCheckpoint: number;
  buffersClean: number;
  buffersBackend: number | null;
  blocksHit: number;
  blocksRead: number;
  tempBytes: number;
  autovacuums: Record<string, number>;
  autoanalyzes: Record<string, number>;
  deadTuples: number;
  /** Each table's rows updated so far, and how many of those updates were HOT (no index entry added). */
  updates: Record<string, { all: number; hot: number }>;
  running: { table: string; phase: string; seconds: number }[];
}

// Catalog reads of the soak's own database, like readPostgresSizes: they measure, they are not the
// project's SQL.
const WRITERS_BEFORE_17 = `
  SELECT checkpoints_timed AS timed, checkpoints_req AS requested, checkpoint_write_time AS write_ms,
         checkpoint_sync_time AS sync_ms, buffers_checkpoint AS by_checkpoint, buffers_clean AS by_bgwriter,
         buffers_backend AS by_backend
  FROM pg_stat_bgwriter`;
// 17 moved checkpoints to pg_stat_checkpointer and backends' writes to pg_stat_io.
const WRITERS_FROM_17 = `
  SELECT c.num_timed AS timed, c.num_requested AS requested, c.write_time AS write_ms, c.sync_time AS sync_ms,
         c.buffers_written AS by_checkpoint, b.buffers_clean AS by_bgwriter, NULL::bigint AS by_backend
  FROM pg_stat_checkpointer c, pg_stat_bgwriter b`;

export async function readPostgresActivity(pool: Pool): Promise<PostgresCounters> {
  const server = await pool.query<{ v: number; block: number }>(
    `SELECT current_setting('server_version_num')::int AS v, current_setting('block_size')::int AS block`,
  );
  const writers = await pool.query<{
    timed: string;
    requested: string;
    write_ms: number;
    sync_ms: number;
    by_checkpoint: string;
    by_bgwriter: string;
    by_backend: string | null;
  }>(server.rows[0]!.v >= 170000 ? WRITERS_FROM_17 : WRITERS_BEFORE_17);
  const db = await pool.query<{ hit: string; read: string; temp: string }>(
    `SELECT blks_hit AS hit, blks_read AS read, temp_bytes AS temp FROM pg_stat_database
     WHERE datname = current_database()`,
  );
  const tables = await pool.query<{
    name: string;
    vacuums: string;
    analyzes: string;
    dead: string;
    upd: string;
    hot: string;
  }>(
    `SELECT relid::regclass::text AS name, autovacuum_count AS vacuums, autoanalyze_count AS analyzes,
            n_dead_tup AS dead, n_tup_upd AS upd, n_tup_hot_upd AS hot
     FROM pg_stat_user_tables`,
  );
  const running = await pool.query<{ name: string; phase: string; seconds: number }>(
    `SELECT p.relid::regclass::text AS name, p.phase,
            extract(epoch FROM now() - coalesce(a.xact_start, now()))::float8 AS seconds
     FROM pg_stat_progress_vacuum p LEFT JOIN pg_stat_activity a ON a.pid = p.pid
     WHERE p.datname = current_database()`,
  );
  const w = writers.rows[0]!;
  const d = db.rows[0]!;
  const autovacuums: Record<string, number> = {};
  const autoanalyzes: Record<string, number> = {};
  const updates: PostgresCounters['updates'] = {};
  let deadTuples = 0;
  for (const t of tables.rows) {
    updates[t.name] = { all: Number(t.upd), hot: Number(t.hot) };
    autovacuums[t.name] = Number(t.vacuums);
    autoanalyzes[t.name] = Number(t.analyzes);
    deadTuples += Number(t.dead);
  }
  return {
    atMs: Date.now(),
    blockBytes: server.rows[0]!.block,
    checkpointsTimed: Number(w.timed),
    checkpointsRequested: Number(w.requested),
    checkpointWriteMs: Number(w.write_ms),
    checkpointSyncMs: Number(w.sync_ms),
    buffersCheckpoint: Number(w.by_checkpoint),
    buffersClean: Number(w.by_bgwriter),
    buffersBackend: w.by_backend === null ? null : Number(w.by_backend),
    blocksHit: Number(d.hit),
    blocksRead: Number(d.read),
    tempBytes: Number(d.temp),
    autovacuums,
    autoanalyzes,
    deadTuples,
    updates,
    running: running.rows.map((r) => ({ table: r.name, phase: r.phase, seconds: Math.round(r.seconds) })),
  };
}
