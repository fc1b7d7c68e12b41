import type { PostgresCounters } from './readPostgresActivity.ts';
import type { PostgresActivity } from './soakSample.ts';

/**
 * What PostgreSQL did between two reads of its counters: checkpoints, buffer writes and block reads
 * per second, the buffer hit ratio, the tables whose autovacuum finished, each table's updates (HOT
 * ones among them), and the vacuums running at the later read. A counter that went down (statistics reset, a restarted server) counts from 0.
 */
export function postgresActivityBetween(before: PostgresCounters, now: PostgresCounters): PostgresActivity {
  const seconds = Math.max((now.atMs - before.atMs) / 1000, 1e-3);
  const delta = (a: number, b: number) => (b >= a ? b - a : b);
  /** Blocks over the interval, in bytes per second. */
  const bytes = (blocks: number) => (blocks * now.blockBytes) / seconds;
  const hit = delta(before.blocksHit, now.blocksHit);
  const read = delta(before.blocksRead, now.blocksRead);
  const finished = (was: Record<string, number>, is: Record<string, number>) =>
    Object.entries(is)
      .filter(([table, n]) => delta(was[table] ?? 0, n) > 0)
      .map(([table]) => table)
      .sort();
  return {
    checkpoints:
      delta(before.checkpointsTimed, now.checkpointsTimed) +
      delta(before.checkpointsRequested, now.checkpointsRequested),
    checkpointsRequested: delta(before.checkpointsRequested, now.checkpointsRequested),
    checkpointWriteSeconds:
      (delta(before.checkpointWriteMs, now.checkpointWriteMs) +
        delta(before.checkpointSyncMs, now.checkpointSyncMs)) /
      1000,
    checkpointWriteBytesPerSecond: bytes(delta(before.buffersCheckpoint, now.buffersCheckpoint)),
    bgwriterWriteBytesPerSecond: bytes(delta(before.buffersClean, now.buffersClean)),
    backendWriteBytesPerSecond:
      before.buffersBackend === null || now.buffersBackend === null
        ? null
        : bytes(delta(before.buffersBackend, now.buffersBackend)),
    readBytesPerSecond: bytes(read),
    bufferHitPercent: hit + read === 0 ? null : (100 * hit) / (hit + read),
    tempBytesPerSecond: delta(before.tempBytes, now.tempBytes) / seconds,
    autovacuumed: finished(before.autovacuums, now.autovacuums),
    autoanalyzed: finished(before.autoanalyzes, now.autoanalyzes),
    vacuumsRunning: now.running,
    updates: Object.entries(now.updates)
      .map(([table, n]) => {
        const was = before.updates[table] ?? { all: 0, hot: 0 };
        return { table, all: delta(was.all, n.all), hot: delta(was.hot, n.hot) };
      })
      .filter((u) => u.all > 0)
      .sort((a, b) => a.table.localeCompare(b.table)),
    deadTuples: now.deadTuples,
  };
}
