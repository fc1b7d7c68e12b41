import { type Growth, judgeGrowth } from './judgeGrowth.ts';
import { judgeHeapSnapshotGrowth } from './judgeHeapSnapshotGrowth.ts';
import { leastSquares } from './leastSquares.ts';
import { type DiskProjection, projectDisk } from './projectDisk.ts';
import type { SoakSample } from './soakSample.ts';
import { type LatencyAgainstLoad, relateLatencyToLoad } from './relateLatencyToLoad.ts';
import { liveDataQuantity, soakSeries } from './soakSeries.ts';
import type { HeapSnapshotGrowth } from './summarizeHeapSnapshot.ts';

export interface KafkaTopicRetention {
  /** retention.ms in hours; null: kept forever (-1). */
  retentionHours: number | null;
  segmentBytes: number;
  segmentHours: number;
  /** cleanup.policy compact: one record per key is kept, whatever the time. */
  compacted: boolean;
}

export interface Retentions {
  /** How long delivery rows are kept, and where that was read; hours null: none is set. */
  delivery: { hours: number | null; source: string };
  kafka: Record<string, KafkaTopicRetention>;
  /** What bounds pg_wal: max_wal_size + wal_keep_size. */
  walBoundBytes: number | null;
}

type StoreClass = 'deliveries' | 'kafka' | 'wal' | 'kept';

interface DiskRow extends DiskProjection {
  store: string;
  /** deliveries: under delivery retention; kafka: under the topic's; wal: bounded; kept: every row kept by design. */
  class: StoreClass;
  bytesAtEnd: number;
  perHour: number;
  retention: string;
  /** Under a retention or a bound: its growth stops. */
  bounded: boolean;
}

type GoalStatus = 'met' | 'missed' | 'unknown';

export interface SoakSummary {
  warmupMinutes: number;
  /** Hours from the load's start to the last sample: the base of the projections. */
  runHours: number;
  growth: Growth[];
  disk: DiskRow[];
  diskTotal: { bytesAtEnd: number; projected30dBytes: number; withoutRetention30dBytes: number };
  /** Each latency against what PostgreSQL and the machine did (empty for runs that did not sample them). */
  latencyAgainstLoad: LatencyAgainstLoad[];
  goals: Record<
    'memoryFlat' | 'diskBoundedByRetention' | 'latencySteady' | 'deliveryRateSteady',
    { status: GoalStatus; offenders: string[] }
  >;
}

/**
 * The report of a soak run: each quantity's growth per hour after warm-up, judged; each store's
 * 30-day disk projection (see projectDisk for the formula); and the four goals. A run with heap
 * snapshots (`heapGrowth`) has each service's heap objects judged from them, in place of its live
 * heap less code (see judgeHeapSnapshotGrowth).
 */
export function summarizeSoak(
  samples: readonly SoakSample[],
  o: {
    warmupMinutes: number;
    retentions: Retentions;
    heapGrowth?: Partial<Record<string, HeapSnapshotGrowth & { hours: number }>>;
  },
): SoakSummary {
  const warmupHours = o.warmupMinutes / 60;
  const series = soakSeries(samples);
  const growth = series.map((s) => judgeGrowth(s, warmupHours));
  for (const [app, g] of Object.entries(o.heapGrowth ?? {})) {
    const gauge = growth.find((x) => x.quantity === liveDataQuantity(app));
    const objects = g && judgeHeapSnapshotGrowth(app, g, gauge?.scatter ?? null);
    if (!objects) continue;
    if (gauge) gauge.judgedBy = objects.quantity;
    growth.push(objects);
  }
  const runHours = (samples[samples.length - 1]?.minute ?? 0) / 60;
  const disk = [...storeSeries(samples)].map(([store, { cls, points }]) => {
    const fit = leastSquares(points.filter((p) => p.x >= warmupHours));
    const bytesAtEnd = points[points.length - 1]?.y ?? 0;
    const { retentionHours, boundBytes, retention } = retentionOf(store, cls, fit.slope, o.retentions);
    return {
      store,
      class: cls,
      bytesAtEnd,
      perHour: fit.slope,
      retention,
      bounded: retentionHours !== null || boundBytes !== null,
      ...projectDisk({ bytesAtEnd, perHour: fit.slope, runHours, retentionHours, boundBytes }),
    };
  });
  const sum = (f: (r: DiskRow) => number) => disk.reduce((a, r) => a + f(r), 0);
  const goal = (offenders: string[], related: Growth[]) => ({
    status: (offenders.length > 0
      ? 'missed'
      : related.some((g) => g.verdict === 'too few samples' && !g.perEvent)
        ? 'unknown'
        : 'met') as GoalStatus,
    offenders,
  });
  const memory = growth.filter((g) => g.kind === 'memory' && !g.judgedBy);
  const latency = growth.filter((g) => g.kind === 'latency');
  const delivery = growth.filter((g) => g.kind === 'rate' || g.kind === 'backlog');
  return {
    warmupMinutes: o.warmupMinutes,
    runHours,
    growth,
    disk,
    diskTotal: {
      bytesAtEnd: sum((r) => r.bytesAtEnd),
      projected30dBytes: sum((r) => r.bytes),
      withoutRetention30dBytes: sum((r) => r.withoutRetentionBytes),
    },
    latencyAgainstLoad: relateLatencyToLoad(series, warmupHours),
    goals: {
      memoryFlat: goal(names(memory.filter((g) => g.verdict === 'grows')), memory),
      latencySteady: goal(names(latency.filter((g) => g.verdict === 'grows')), latency),
      deliveryRateSteady: goal(
        names(delivery.filter((g) => (g.kind === 'rate' ? g.verdict === 'falls' : g.verdict === 'grows'))),
        delivery,
      ),
      // What should be bounded and is not: delivery rows or a topic with no retention, still growing.
      diskBoundedByRetention: goal(
        disk.filter((r) => r.class !== 'kept' && !r.bounded && r.perHour > 0).map((r) => r.store),
        growth.filter((g) => g.kind === 'disk'),
      ),
    },
  };
}

const names = (gs: Growth[]) => gs.map((g) => g.quantity);

/**
 * The stores whose disk is projected, with their size at each sample: each PostgreSQL table with
 * its indexes, pg_wal, each Kafka topic. Delivery tables (deliveries, delivery_attempts and
 * whatever partitions them) are the ones delivery retention bounds.
 */
function storeSeries(
  samples: readonly SoakSample[],
): Map<string, { cls: StoreClass; points: { x: number; y: number }[] }> {
  const out = new Map<string, { cls: StoreClass; points: { x: number; y: number }[] }>();
  const add = (store: string, cls: StoreClass, x: number, y: number) => {
    const s = out.get(store) ?? { cls, points: [] };
    s.points.push({ x, y });
    out.set(store, s);
  };
  for (const s of samples) {
    const x = s.minute / 60;
    if (s.postgres) {
      const byTable = new Map(Object.entries(s.postgres.tables));
      for (const { table, bytes } of Object.values(s.postgres.indexes))
        byTable.set(table, (byTable.get(table) ?? 0) + bytes);
      for (const [table, bytes] of byTable)
        add(
          `postgres ${table} (with indexes)`,
          table.startsWith('deliver') ? 'deliveries' : 'kept',
          x,
          bytes,
        );
      add('postgres pg_wal', 'wal', x, s.postgres.walDirBytes);
    }
    for (const [topic, bytes] of Object.entries(s.kafka.topics)) add(`kafka ${topic}`, 'kafka', x, bytes);
  }
  return out;
}

function retentionOf(
  store: string,
  cls: StoreClass,
  perHour: number,
  r: Retentions,
): { retentionHours: number | null; boundBytes: number | null; retention: string } {
  switch (cls) {
    case 'deliveries':
      return { retentionHours: r.delivery.hours, boundBytes: null, retention: r.delivery.source };
    case 'wal':
      return {
        retentionHours: null,
        boundBytes: r.walBoundBytes,
        retention: 'bounded by max_wal_size + wal_keep_size',
      };
    case 'kept':
      return {
        retentionHours: null,
        boundBytes: null,
        retention: 'none: kept by design (the indexed chain, settings)',
      };
    case 'kafka': {
      const topic = store.slice('kafka '.length);
      // KRaft's metadata log: trimmed once the controller has written a snapshot of it.
      if (topic === '__cluster_metadata')
        return { retentionHours: null, boundBytes: 0, retention: 'metadata log: trimmed by snapshots' };
      const t = r.kafka[topic];
      if (!t) return { retentionHours: null, boundBytes: null, retention: 'none known' };
      if (t.compacted)
        return { retentionHours: null, boundBytes: 0, retention: 'compacted: one record per key' };
      if (t.retentionHours === null)
        return { retentionHours: null, boundBytes: null, retention: 'retention.ms -1: kept' };
      // A segment is deleted whole once its newest record is past retention, and the active one
      // only after it rolls (segment.bytes or segment.ms): up to one segment more is kept.
      const rollHours = perHour > 0 ? Math.min(t.segmentHours, t.segmentBytes / perHour) : t.segmentHours;
      return {
        retentionHours: t.retentionHours + rollHours,
        boundBytes: null,
        retention: `retention.ms ${t.retentionHours.toFixed(1)} h + ${rollHours.toFixed(1)} h until its segment rolls`,
      };
    }
  }
}
