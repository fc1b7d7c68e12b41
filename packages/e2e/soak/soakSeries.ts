import type { PostgresActivity, SoakSample } from './soakSample.ts';

/**
 * What a quantity is, which decides how its growth is judged: memory should stay flat, latency
 * and backlogs should not rise, rates should not fall, disk grows and is judged by its 30-day
 * projection, and `info` quantities are only reported. `load` is what the parts every service
 * shares did (PostgreSQL's checkpoints, vacuums and reads, the machine's CPU): reported, and set
 * against the latencies to tell a step they all take together from one service's own.
 */
export type SeriesKind = 'memory' | 'latency' | 'backlog' | 'rate' | 'disk' | 'info' | 'load';

export interface Series {
  name: string;
  kind: SeriesKind;
  unit: 'bytes' | 'bytes/s' | 'ms' | 's' | '/s' | 'count' | 'cores' | '%';
  /** x: hours since the load started; y: the value. */
  points: { x: number; y: number }[];
  /**
   * A point per event (a full collection), not per sample: too few of them means the events were
   * rare, which leaves no goal unknown.
   */
  perEvent?: true;
}

/** The name of a service's live heap less code (`nodejs_heap_live_data_bytes`) in the growth table. */
export const liveDataQuantity = (app: string) => `${app} live heap less code (after a full GC)`;

/** Every quantity of the samples as a series over time (a value a sample lacks is left out). */
export function soakSeries(samples: readonly SoakSample[]): Series[] {
  const all = new Map<string, Series>();
  const add = (
    name: string,
    kind: SeriesKind,
    unit: Series['unit'],
    s: SoakSample,
    y: number | null,
    perEvent?: true,
  ) => {
    if (y === null || !Number.isFinite(y)) return;
    let series = all.get(name);
    if (!series) {
      series = perEvent ? { name, kind, unit, points: [], perEvent } : { name, kind, unit, points: [] };
      all.set(name, series);
    }
    series.points.push({ x: s.minute / 60, y });
  };
  // The live heap changes only at a full collection: one point per collection (a sample whose value
  // is the previous one's saw none), so a service that collected rarely has few points, not many
  // equal ones that would call it flat.
  const lastLive = new Map<string, number>();
  const lastLiveData = new Map<string, number>();
  const lastBuffers = new Map<string, number>();
  for (const s of samples) {
    for (const [app, p] of Object.entries(s.services)) {
      add(`${app} RSS`, 'memory', 'bytes', s, p.rssBytes);
      // Heap used and external memory at the sample: they saw with the garbage made since the last
      // collection, so a run's slope of them says where in its sawtooth the last sample fell (the
      // follower's external memory sat at 4.0, 6.9 or 9.8 MiB between collections, and a run ending
      // on 9.8 "grew"). Reported; what is still held after a collection is judged below.
      add(`${app} heap used`, 'info', 'bytes', s, p.heapUsedBytes);
      add(`${app} external memory`, 'info', 'bytes', s, p.externalBytes);
      // What the heap retains (RSS follows V8's sizing), reported; it counts the code the JIT keeps
      // compiling for hours, which is not held data.
      if (p.heapLiveBytes !== lastLive.get(app)) {
        lastLive.set(app, p.heapLiveBytes);
        add(`${app} live heap (after a full GC)`, 'info', 'bytes', s, p.heapLiveBytes, true);
      }
      // The Buffers still referenced after a full collection: a point per collection, as above.
      if (p.arrayBuffersLiveBytes !== undefined && p.arrayBuffersLiveBytes !== lastBuffers.get(app)) {
        lastBuffers.set(app, p.arrayBuffersLiveBytes);
        add(`${app} Buffers (after a full GC)`, 'memory', 'bytes', s, p.arrayBuffersLiveBytes, true);
      }
      // The leak figure: what the application holds, the live heap less V8's code.
      if (p.heapLiveDataBytes !== lastLiveData.get(app)) {
        lastLiveData.set(app, p.heapLiveDataBytes);
        add(liveDataQuantity(app), 'memory', 'bytes', s, p.heapLiveDataBytes, true);
      }
      // Where RSS lives, to tell V8 sizing its heap from native growth (allocator, buffers): reported.
      add(`${app} V8 heap committed`, 'info', 'bytes', s, p.heapTotalBytes);
      add(`${app} RSS outside the V8 heap`, 'info', 'bytes', s, p.rssBytes - p.heapTotalBytes);
      add(`${app} event-loop delay p99`, 'latency', 'ms', s, p.eventLoopP99Ms);
      add(`${app} CPU`, 'info', 'cores', s, p.cpuCores ?? null);
    }
    if (s.redis) add('redis used memory', 'memory', 'bytes', s, s.redis.usedMemoryBytes);
    add(
      'webhook latency p50 (block mined → unconfirmed webhook)',
      'latency',
      'ms',
      s,
      nonEmpty(s.latency.p50Ms),
    );
    add(
      'webhook latency p99 (block mined → unconfirmed webhook)',
      'latency',
      'ms',
      s,
      nonEmpty(s.latency.p99Ms),
    );
    add('webhooks delivered (answered 2xx)', 'rate', '/s', s, s.delivery.deliveredPerSecond);
    add('webhook POSTs received (retries included)', 'info', '/s', s, s.delivery.requestsPerSecond);
    add('deliveries pending', 'backlog', 'count', s, s.delivery.pending);
    add('oldest pending delivery', 'backlog', 's', s, s.delivery.oldestPendingSeconds);
    add('follower lag', 'backlog', 'count', s, s.pipeline.followerLagBlocks);
    add('projector consumer lag', 'backlog', 'count', s, s.pipeline.projectorLagMessages);
    add('matcher consumer lag', 'backlog', 'count', s, s.pipeline.matcherLagMessages);
    add('projector time per transaction', 'latency', 'ms', s, s.pipeline.projectorBatchMs);
    add('matcher time per block', 'latency', 'ms', s, s.pipeline.matcherBlockMs);
    add('sender relay pass over the pending deliveries', 'latency', 'ms', s, s.pipeline.relayPassMs ?? null);
    add('gateway data API p99', 'latency', 'ms', s, nonEmpty(s.api.p99Ms));
    if (s.postgres) {
      add('postgres database', 'disk', 'bytes', s, s.postgres.databaseBytes);
      add('postgres pg_wal', 'disk', 'bytes', s, s.postgres.walDirBytes);
      add('postgres WAL written', 'info', 'bytes/s', s, s.postgres.walWrittenPerSecond);
      for (const [t, bytes] of Object.entries(s.postgres.tables))
        add(`table ${t}`, 'disk', 'bytes', s, bytes);
      for (const [i, v] of Object.entries(s.postgres.indexes)) add(`index ${i}`, 'disk', 'bytes', s, v.bytes);
    }
    const a = s.postgresActivity;
    if (a) {
      add('postgres checkpoint writes', 'load', 'bytes/s', s, a.checkpointWriteBytesPerSecond);
      add('postgres background writer writes', 'load', 'bytes/s', s, a.bgwriterWriteBytesPerSecond);
      add('postgres backend writes', 'load', 'bytes/s', s, a.backendWriteBytesPerSecond);
      add('postgres reads outside shared buffers', 'load', 'bytes/s', s, a.readBytesPerSecond);
      add('postgres buffer hit ratio', 'load', '%', s, a.bufferHitPercent);
      add('postgres temp files written', 'load', 'bytes/s', s, a.tempBytesPerSecond);
      // Tables vacuumed in the interval: an autovacuum finished in it, or a vacuum running at its end.
      add('postgres tables vacuumed', 'load', 'count', s, vacuumedTables(a).length);
      add('postgres dead tuples', 'load', 'count', s, a.deadTuples);
    }
    if (s.host) {
      add('host CPU busy', 'load', 'cores', s, s.host.busyCores);
      add('host CPU waiting on I/O', 'load', 'cores', s, s.host.iowaitCores);
      add('host CPU stolen', 'load', 'cores', s, s.host.stealCores);
      add(
        'machine speed: a fixed JS workload (lower is faster)',
        'load',
        'ms',
        s,
        s.host.jsWorkloadMs ?? null,
      );
      // By process group: PostgreSQL's roles, Kafka (java), Redis, anvil, the services (node), the soak.
      for (const [group, cores] of Object.entries(s.host.processes ?? {}))
        add(`CPU of ${group}`, 'load', 'cores', s, cores);
    }
    add('kafka log dir', 'disk', 'bytes', s, s.kafka.logDirBytes);
    for (const [t, bytes] of Object.entries(s.kafka.topics))
      add(`kafka topic ${t}`, 'disk', 'bytes', s, bytes);
  }
  return [...all.values()];
}

/** The tables vacuumed in an interval: an autovacuum finished in it, or a vacuum (auto or not) running at its end. */
export function vacuumedTables(a: PostgresActivity): string[] {
  return [...new Set([...a.autovacuumed, ...a.vacuumsRunning.map((v) => v.table)])].sort();
}

/** Percentiles of an interval with no webhook are NaN: no point. */
const nonEmpty = (v: number) => (Number.isNaN(v) ? null : v);
