import { describe, expect, it } from 'vitest';
import { deliveryRetentionFromEnv } from '../soak/deliveryRetentionFromEnv.ts';
import { formatSoakReport } from '../soak/formatSoakReport.ts';
import { postgresActivityBetween } from '../soak/postgresActivityBetween.ts';
import type { PostgresCounters } from '../soak/readPostgresActivity.ts';
import { pearson, relateLatencyToLoad } from '../soak/relateLatencyToLoad.ts';
import { soakSeries } from '../soak/soakSeries.ts';
import { judgeGrowth } from '../soak/judgeGrowth.ts';
import { leastSquares } from '../soak/leastSquares.ts';
import { projectDisk } from '../soak/projectDisk.ts';
import { metricSum, parsePrometheus } from '../soak/readServiceMetrics.ts';
import type { SoakSample } from '../soak/soakSample.ts';
import { type Retentions, summarizeSoak } from '../soak/summarizeSoak.ts';

// The soak command's report, computed on fixed samples: pure functions, no run, no timing.
const GiB = 2 ** 30;
const MiB = 2 ** 20;

describe('leastSquares', () => {
  it('fits a line exactly, and gives the standard error of a noisy slope', () => {
    expect(leastSquares([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })))).toEqual({
      slope: 2,
      intercept: 1,
      slopeStdErr: 0,
      residualStdDev: 0,
    });
    const noisy = leastSquares([
      { x: 0, y: 1 },
      { x: 1, y: 3 },
      { x: 2, y: 2 },
      { x: 3, y: 5 },
    ]);
    expect(noisy.slope).toBeCloseTo(1.1, 10);
    expect(noisy.intercept).toBeCloseTo(1.1, 10);
    expect(noisy.slopeStdErr).toBeCloseTo(Math.sqrt(2.7 / 2 / 5), 10);
    expect(noisy.residualStdDev).toBeCloseTo(Math.sqrt(2.7 / 2), 10);
    expect(
      leastSquares([
        { x: 0, y: 1 },
        { x: 1, y: 2 },
      ]).slopeStdErr,
    ).toBeNull();
  });
});

describe('judgeGrowth', () => {
  const series = (y: (hour: number) => number) => ({
    name: 'x RSS',
    kind: 'memory' as const,
    unit: 'bytes' as const,
    // Every 6 minutes for 3 hours, with a little noise so that each fit has a standard error.
    points: Array.from({ length: 31 }, (_, i) => ({ x: i / 10, y: y(i / 10) + (i % 2 ? MiB / 10 : 0) })),
  });

  it('a leak grows as fast in the later half as over the run', () => {
    const g = judgeGrowth(
      series((h) => 100 * MiB + 5 * MiB * h),
      0,
    );
    expect(g.verdict).toBe('grows');
    expect(g.perHour / MiB).toBeCloseTo(5, 0);
    expect((g.laterHalf?.perHour ?? 0) / MiB).toBeCloseTo(5, 0);
  });

  it('a step that levels off grows over the run and not in its later half', () => {
    const g = judgeGrowth(
      series((h) => (h < 1 ? 100 * MiB : 110 * MiB)),
      0,
    );
    expect(g.perHour / MiB).toBeGreaterThan(3);
    expect(g.verdict).toBe('levels off');
    expect(Math.abs(g.laterHalf?.perHour ?? Number.NaN)).toBeLessThan(
      2 * (g.laterHalf?.perHourStdErr ?? 0) + MiB / 10,
    );
  });

  it('growth that slows but goes on is still growth; levelling off is for memory alone', () => {
    // 6 MiB/h in the first half, 3 MiB/h (3 %/h, beyond noise) in the later: not half the run's slope.
    const slowing = judgeGrowth(
      series((h) => 100 * MiB + (h < 1.5 ? 6 * MiB * h : 9 * MiB + 3 * MiB * (h - 1.5))),
      0,
    );
    expect(slowing.verdict).toBe('grows');
    const latency = judgeGrowth(
      {
        name: 'x latency',
        kind: 'latency',
        unit: 'ms',
        points: Array.from({ length: 31 }, (_, i) => ({ x: i / 10, y: (i < 10 ? 100 : 130) + (i % 2) })),
      },
      0,
    );
    expect(latency.verdict).toBe('grows');
  });
});

describe('projectDisk', () => {
  it('without retention: size at the end plus growth for the rest of 30 days', () => {
    const p = projectDisk({ bytesAtEnd: 10 * GiB, perHour: GiB, runHours: 1 });
    expect(p.bytes).toBe(729 * GiB);
    expect(p.withoutRetentionBytes).toBe(729 * GiB);
    expect(p.formula).toBe('10.000 GiB + 1.000 GiB/h × (720 h − 1.00 h) = 729.000 GiB');
  });

  it('with retention: the growth of what retention keeps, flat once the run is longer than it', () => {
    expect(projectDisk({ bytesAtEnd: 10 * GiB, perHour: GiB, runHours: 1, retentionHours: 168 }).bytes).toBe(
      177 * GiB,
    );
    expect(projectDisk({ bytesAtEnd: 10 * GiB, perHour: GiB, runHours: 1, retentionHours: 0.5 }).bytes).toBe(
      10 * GiB,
    );
    expect(projectDisk({ bytesAtEnd: 10 * GiB, perHour: GiB, runHours: 1, retentionHours: 5000 }).bytes).toBe(
      729 * GiB,
    );
  });

  it('a shrinking store counts as flat; a bounded one stops at its bound', () => {
    expect(projectDisk({ bytesAtEnd: 10 * GiB, perHour: -GiB, runHours: 1 }).bytes).toBe(10 * GiB);
    const wal = projectDisk({ bytesAtEnd: 0.5 * GiB, perHour: 0.1 * GiB, runHours: 1, boundBytes: GiB });
    expect(wal.bytes).toBe(GiB);
    // The bound is no retention: it holds either way.
    expect(wal.withoutRetentionBytes).toBe(GiB);
  });
});

describe('deliveryRetentionFromEnv', () => {
  it("reads the sender's delivered-webhook retention, or its default", () => {
    expect(deliveryRetentionFromEnv({ DELIVERY_RETENTION_DAYS: '7' })).toEqual({
      hours: 168,
      source: 'DELIVERY_RETENTION_DAYS=7 (environment); failed rows 90 (default) days',
    });
    expect(deliveryRetentionFromEnv({}).hours).toBe(720);
    expect(deliveryRetentionFromEnv({ DELIVERY_RETENTION_DAYS: 'x' }).source).toContain('(default)');
  });
});

describe('parsePrometheus', () => {
  it('reads series and sums those whose labels match', () => {
    const series = parsePrometheus(
      [
        '# HELP process_resident_memory_bytes Resident memory size in bytes.',
        'process_resident_memory_bytes{service="projector"} 123456',
        'tributary_webhook_attempts_total{outcome="delivered",service="webhook-sender"} 10',
        'tributary_webhook_attempts_total{outcome="retry",service="webhook-sender"} 3',
        'nodejs_eventloop_lag_p99_seconds{service="projector"} 0.0125',
      ].join('\n'),
    );
    expect(metricSum(series, 'process_resident_memory_bytes')).toBe(123456);
    expect(metricSum(series, 'tributary_webhook_attempts_total')).toBe(13);
    expect(metricSum(series, 'tributary_webhook_attempts_total', { outcome: 'retry' })).toBe(3);
    expect(metricSum(series, 'nodejs_eventloop_lag_p99_seconds')).toBe(0.0125);
    expect(metricSum(series, 'missing')).toBeNull();
  });
});

/** Minute m of a 60-minute run: linear growth where stated, a small alternating wobble elsewhere. */
function sample(m: number): SoakSample {
  const h = m / 60;
  const wobble = m % 2 === 0 ? 1 : -1;
  // Garbage Buffers between collections: external memory and heap used sit at 4, 7 or 10 MiB more,
  // and the run ends at the top of it (as the follower's did), with no more held after a collection.
  const sawtooth = [0, 0, 3, 0, 3, 6, 6][Math.floor(m / 10)]! * MiB;
  const service = (
    rss: number,
    live = 40 * MiB,
    liveData = live - 8 * MiB,
    buffers = 2 * MiB + (Math.floor(m / 10) % 2 === 0 ? 0.01 : -0.01) * MiB,
  ) => ({
    rssBytes: rss,
    heapUsedBytes: 50 * MiB + wobble * MiB + sawtooth,
    heapTotalBytes: 80 * MiB,
    heapLiveBytes: live,
    heapLiveDataBytes: liveData,
    externalBytes: 4 * MiB + sawtooth,
    arrayBuffersLiveBytes: buffers,
    eventLoopP50Ms: 1,
    eventLoopP99Ms: 10 + wobble,
    eventLoopMaxMs: 20,
  });
  return {
    minute: m,
    at: new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString(),
    services: {
      // Its live heap grows with the code the JIT compiles (3 MiB an hour); what it holds wobbles, flat.
      projector: service(
        200 * MiB + wobble * MiB,
        40 * MiB + 3 * MiB * (Math.floor(m / 10) / 6),
        32 * MiB + (Math.floor(m / 10) % 2 === 0 ? 0.1 : -0.1) * MiB,
      ),
      // A leak: 20 MiB an hour on 200 MiB, 10 %/h; its heap's full collections come every 10 minutes.
      'stream-matcher': service(200 * MiB + 20 * MiB * h, 40 * MiB + 20 * MiB * (Math.floor(m / 10) / 6)),
      // Buffers it keeps referencing: 6 MiB an hour, seen at its full collections (every 10 minutes).
      'webhook-sender': service(
        200 * MiB + wobble * MiB,
        40 * MiB,
        32 * MiB,
        2 * MiB + 6 * MiB * (Math.floor(m / 10) / 6),
      ),
    },
    unplannedExits: {},
    postgres: {
      databaseBytes: 2 * GiB + 1.1 * GiB * h,
      tables: { deliveries: GiB + 0.8 * GiB * h, blocks: 0.5 * GiB + 0.1 * GiB * h },
      indexes: {
        deliveries_pkey: { table: 'deliveries', bytes: 0.2 * GiB * h },
        blocks_pkey: { table: 'blocks', bytes: MiB },
      },
      walDirBytes: 0.5 * GiB + wobble * MiB,
      walWrittenPerSecond: m === 0 ? null : 1e6,
    },
    kafka: { logDirBytes: 0.2 * GiB * h, topics: { 'evm.blocks.v1': 0.2 * GiB * h } },
    redis: { usedMemoryBytes: 30 * MiB + wobble * 0.1 * MiB, rssBytes: 40 * MiB },
    latency: { webhooks: 12_000, p50Ms: 40 + wobble, p90Ms: 80, p99Ms: 150 + 2 * wobble, maxMs: 900 },
    delivery: {
      deliveredPerSecond: 200 + wobble,
      requestsPerSecond: 220,
      failedPerSecond: 10,
      attemptsPerSecond: { delivered: 200, retry: 10, gave_up: 0, held: 0 },
      pending: 500 + 10 * wobble,
      oldestPendingSeconds: 30 + wobble,
    },
    pipeline: {
      blocks: 60,
      logs: 18_000,
      followerLagBlocks: 0,
      projectorLagMessages: 0,
      matcherLagMessages: 0,
      projectorBatchMs: 40 + wobble,
      matcherBlockMs: 20 + wobble,
    },
    api: { requests: 120, errors: 0, p50Ms: 5, p99Ms: 30 + wobble },
  };
}

const samples = Array.from({ length: 61 }, (_, m) => sample(m));
const retentions = (deliveryHours: number | null): Retentions => ({
  delivery: { hours: deliveryHours, source: deliveryHours === null ? 'none set' : `${deliveryHours} h` },
  kafka: { 'evm.blocks.v1': { retentionHours: 24, segmentBytes: GiB, segmentHours: 168, compacted: false } },
  walBoundBytes: GiB,
});

describe('summarizeSoak', () => {
  const summary = summarizeSoak(samples, { warmupMinutes: 10, retentions: retentions(72) });
  const growth = (q: string) => summary.growth.find((g) => g.quantity === q)!;
  const disk = (store: string) => summary.disk.find((d) => d.store === store)!;

  it('fits growth per hour after warm-up and tells a leak from noise', () => {
    expect(growth('stream-matcher RSS').samples).toBe(51);
    expect(growth('stream-matcher RSS').perHour).toBeCloseTo(20 * MiB, 0);
    expect(growth('stream-matcher RSS').verdict).toBe('grows');
    expect(growth('projector RSS').verdict).toBe('flat');
    // The live heap: a point per full collection, not per sample.
    expect(growth('stream-matcher live heap (after a full GC)').samples).toBe(6);
    expect(growth('stream-matcher live heap (after a full GC)').verdict).toBe('grows');
    // The projector's live heap grows by its compiled code: reported; what it holds is judged, flat.
    expect(growth('projector live heap (after a full GC)').kind).toBe('info');
    expect(growth('projector live heap (after a full GC)').verdict).toBe('grows');
    expect(growth('projector live heap less code (after a full GC)').samples).toBe(6);
    expect(growth('projector live heap less code (after a full GC)').verdict).toBe('flat');
    expect(growth('stream-matcher live heap less code (after a full GC)').verdict).toBe('grows');
    expect(growth('redis used memory').verdict).toBe('flat');
    // Garbage Buffers saw external memory and heap used: reported, and not taken for a leak.
    expect(growth('projector external memory').kind).toBe('info');
    expect(growth('projector external memory').verdict).toBe('grows');
    expect(growth('projector heap used').kind).toBe('info');
    expect(growth('projector Buffers (after a full GC)').kind).toBe('memory');
    expect(growth('projector Buffers (after a full GC)').verdict).not.toBe('grows');
    // Buffers still held after each collection, more each time: a leak.
    expect(growth('webhook-sender Buffers (after a full GC)').kind).toBe('memory');
    expect(growth('webhook-sender Buffers (after a full GC)').verdict).toBe('grows');
    expect(growth('table deliveries').perHour).toBeCloseTo(0.8 * GiB, 0);
    expect(growth('webhook latency p99 (block mined → unconfirmed webhook)').verdict).toBe('flat');
    expect(growth('webhooks delivered (answered 2xx)').verdict).toBe('flat');
  });

  it('projects each store to 30 days: a table with its indexes under delivery retention, a topic under its own, chain data kept', () => {
    const deliveries = disk('postgres deliveries (with indexes)');
    expect(deliveries.class).toBe('deliveries');
    expect(deliveries.perHour).toBeCloseTo(GiB, 0);
    expect(deliveries.bytesAtEnd).toBeCloseTo(2 * GiB, 0);
    expect(deliveries.bytes).toBeCloseTo(2 * GiB + GiB * (72 - 1), 0);
    expect(deliveries.withoutRetentionBytes).toBeCloseTo(2 * GiB + GiB * 719, 0);
    // Kafka keeps 24 h plus the 5 h a 1 GiB segment takes to fill at 0.2 GiB/h.
    const topic = disk('kafka evm.blocks.v1');
    expect(topic.bytes).toBeCloseTo(0.2 * GiB + 0.2 * GiB * (29 - 1), 0);
    const blocks = disk('postgres blocks (with indexes)');
    expect(blocks.class).toBe('kept');
    expect(blocks.bytes).toBeCloseTo(0.6 * GiB + MiB + 0.1 * GiB * 719, 0);
    // pg_wal wobbles around 0.5 GiB: it stays about there, and never beyond its bound.
    const wal = disk('postgres pg_wal');
    expect(wal.bytes).toBeGreaterThanOrEqual(wal.bytesAtEnd);
    expect(wal.bytes).toBeLessThan(wal.bytesAtEnd + 0.1 * GiB);
    expect(summary.diskTotal.projected30dBytes).toBeCloseTo(
      deliveries.bytes + topic.bytes + blocks.bytes + wal.bytes,
      0,
    );
  });

  it('judges the goals and names what missed them', () => {
    expect(summary.goals).toEqual({
      memoryFlat: {
        status: 'missed',
        offenders: [
          'stream-matcher RSS',
          'stream-matcher live heap less code (after a full GC)',
          'webhook-sender Buffers (after a full GC)',
        ],
      },
      latencySteady: { status: 'met', offenders: [] },
      deliveryRateSteady: { status: 'met', offenders: [] },
      diskBoundedByRetention: { status: 'met', offenders: [] },
    });
    const noRetention = summarizeSoak(samples, { warmupMinutes: 10, retentions: retentions(null) });
    expect(noRetention.goals.diskBoundedByRetention).toEqual({
      status: 'missed',
      offenders: ['postgres deliveries (with indexes)'],
    });
  });

  it("with heap snapshots, judges each service's objects from them in place of its live heap less code", () => {
    const snapshotGrowth = (
      objectBytesBefore: number | undefined,
      objectBytes: number,
      jitBytes: number,
    ) => ({
      totalBytes: objectBytes + jitBytes,
      jitBytes,
      weakListBytes: 0,
      objectBytes,
      objectBytesBefore,
      top: [],
      hours: 0.5,
    });
    const judged = summarizeSoak(samples, {
      warmupMinutes: 10,
      retentions: retentions(72),
      heapGrowth: {
        // Its gauge wobbles flat, but its snapshots counted 2 MiB more objects in half an hour on 30 MiB.
        projector: snapshotGrowth(30 * MiB, 2 * MiB, 0),
        // Its gauge grows 20 MiB an hour; its snapshots say the growth is the JIT's, its objects flat.
        'stream-matcher': snapshotGrowth(30 * MiB, 64 * 1024, 10 * MiB),
        // A run saved before the field: no judgment from its snapshots, its gauge stands.
        'webhook-sender': snapshotGrowth(undefined, MiB, 0),
      },
    });
    const of = (q: string) => judged.growth.find((g) => g.quantity === q);
    expect(of('projector heap objects (snapshots)')).toMatchObject({
      kind: 'memory',
      samples: 2,
      first: 30 * MiB,
      last: 32 * MiB,
      perHour: 4 * MiB,
      verdict: 'grows',
    });
    expect(of('projector live heap less code (after a full GC)')!.judgedBy).toBe(
      'projector heap objects (snapshots)',
    );
    expect(of('stream-matcher heap objects (snapshots)')!.verdict).toBe('flat');
    expect(of('stream-matcher heap objects (snapshots)')!.perHour).toBe(128 * 1024);
    expect(of('stream-matcher live heap less code (after a full GC)')!.verdict).toBe('grows');
    expect(of('webhook-sender heap objects (snapshots)')).toBeUndefined();
    expect(of('webhook-sender live heap less code (after a full GC)')!.judgedBy).toBeUndefined();
    expect(judged.goals.memoryFlat).toEqual({
      status: 'missed',
      offenders: [
        'stream-matcher RSS',
        'webhook-sender Buffers (after a full GC)',
        'projector heap objects (snapshots)',
      ],
    });
    const report = formatSoakReport(samples, judged, 'heading');
    expect(report).toContain('flat (6 full GCs; not judged: its snapshots are)');
  });

  it("holds the snapshots' two points to the scatter of the service's sampled live heap, what is in flight at a collection", () => {
    const snapshotGrowth = {
      totalBytes: 2 * MiB,
      jitBytes: 0,
      weakListBytes: 0,
      objectBytes: 2 * MiB,
      top: [],
      hours: 0.5,
    };
    const heapGrowth = { projector: { ...snapshotGrowth, objectBytesBefore: 30 * MiB } };
    // The same +2 MiB in half an hour, by a projector whose live heap swings ±2 MiB with the batch in flight.
    const swinging = samples.map((x, i) => {
      const projector = x.services.projector!;
      const liveData = projector.heapLiveDataBytes! + (i % 2 === 0 ? 2 : -2) * MiB;
      return { ...x, services: { ...x.services, projector: { ...projector, heapLiveDataBytes: liveData } } };
    });
    const of = (s: ReturnType<typeof summarizeSoak>) =>
      s.growth.find((g) => g.quantity === 'projector heap objects (snapshots)')!;
    const noisy = of(summarizeSoak(swinging, { warmupMinutes: 10, retentions: retentions(72), heapGrowth }));
    // Two points each off by about 2 MiB: the slope's standard error is 2 MiB × √2 / 0.5 h.
    expect(noisy.perHourStdErr! / MiB).toBeCloseTo((2 * Math.SQRT2) / 0.5, 0);
    expect(noisy).toMatchObject({ perHour: 4 * MiB, verdict: 'flat' });
    // The steady projector's scatter is small: the same growth is beyond it.
    const steady = of(summarizeSoak(samples, { warmupMinutes: 10, retentions: retentions(72), heapGrowth }));
    expect(steady.perHourStdErr!).toBeLessThan(MiB);
    expect(steady.verdict).toBe('grows');
  });

  it("judges the relay's pass over the pending deliveries as a latency; a run written before it has none", () => {
    const relay = 'sender relay pass over the pending deliveries';
    expect(summary.growth.find((g) => g.quantity === relay)).toBeUndefined();
    // Dead entries pile up in the pending index between vacuums: the pass takes longer and longer.
    const growing = samples.map((x) => ({
      ...x,
      pipeline: { ...x.pipeline, relayPassMs: 3 + x.minute / 4 },
    }));
    const judged = summarizeSoak(growing, { warmupMinutes: 10, retentions: retentions(72) });
    const pass = judged.growth.find((g) => g.quantity === relay)!;
    expect(pass.kind).toBe('latency');
    expect(pass.perHour).toBeCloseTo(15, 6);
    expect(judged.goals.latencySteady).toEqual({ status: 'missed', offenders: [relay] });
  });
});

describe('what the shared parts did', () => {
  it("turns PostgreSQL's counters into what it did over the interval", () => {
    const at = (ms: number, c: Partial<PostgresCounters>): PostgresCounters => ({
      atMs: ms,
      blockBytes: 8192,
      checkpointsTimed: 10,
      checkpointsRequested: 1,
      checkpointWriteMs: 5_000,
      checkpointSyncMs: 100,
      buffersCheckpoint: 1_000,
      buffersClean: 0,
      buffersBackend: 50,
      blocksHit: 9_000,
      blocksRead: 1_000,
      tempBytes: 0,
      autovacuums: { deliveries: 2, blocks: 0 },
      autoanalyzes: { deliveries: 3, blocks: 1 },
      deadTuples: 10,
      updates: { deliveries_p20261201: { all: 100, hot: 90 }, blocks: { all: 5, hot: 0 } },
      running: [],
      ...c,
    });
    const before = at(0, {});
    const after = at(10_000, {
      checkpointsTimed: 11,
      checkpointWriteMs: 9_000,
      checkpointSyncMs: 600,
      buffersCheckpoint: 2_280,
      blocksHit: 9_900,
      blocksRead: 1_100,
      autovacuums: { deliveries: 3, blocks: 0, logs: 1 },
      deadTuples: 700,
      updates: {
        deliveries_p20261201: { all: 300, hot: 280 },
        blocks: { all: 5, hot: 0 },
        delivery_queue: { all: 7, hot: 1 },
      },
      running: [{ table: 'transfers', phase: 'scanning heap', seconds: 42 }],
    });
    expect(postgresActivityBetween(before, after)).toEqual({
      checkpoints: 1,
      checkpointsRequested: 0,
      checkpointWriteSeconds: 4.5,
      checkpointWriteBytesPerSecond: (1_280 * 8192) / 10,
      bgwriterWriteBytesPerSecond: 0,
      backendWriteBytesPerSecond: 0,
      readBytesPerSecond: (100 * 8192) / 10,
      bufferHitPercent: 90,
      tempBytesPerSecond: 0,
      // A table first seen with one autovacuum had it in the interval.
      autovacuumed: ['deliveries', 'logs'],
      autoanalyzed: [],
      vacuumsRunning: [{ table: 'transfers', phase: 'scanning heap', seconds: 42 }],
      deadTuples: 700,
      // Only the tables updated in the interval, a table first seen counted from 0.
      updates: [
        { table: 'deliveries_p20261201', all: 200, hot: 190 },
        { table: 'delivery_queue', all: 7, hot: 1 },
      ],
    });
    // A restarted server (or a statistics reset) counts from 0; no block asked for, no ratio.
    const restarted = postgresActivityBetween(
      after,
      at(20_000, { checkpointsTimed: 1, blocksHit: 0, blocksRead: 0 }),
    );
    expect(restarted.checkpoints).toBe(1);
    expect(restarted.bufferHitPercent).toBeNull();
    expect(after.buffersBackend).toBe(50);
    expect(
      postgresActivityBetween(before, at(10_000, { buffersBackend: null })).backendWriteBytesPerSecond,
    ).toBeNull();
  });

  it('Pearson r: 1 and -1 for lines, null when a side does not vary', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    expect(pearson([1, 2, 3], [5, 5, 5])).toBeNull();
    expect(pearson([1, 1, 2, 2], [1, 2, 1, 2])).toBe(0);
  });

  // The run of above with a step at minute 40 that the webhook latency, the projector and
  // checkpoint writes take together, while the machine's CPU only wobbles on a cycle of three.
  const step = (m: number) => (m >= 40 ? 1 : 0);
  const stepped: SoakSample[] = samples.map((x) => ({
    ...x,
    latency: { ...x.latency, p50Ms: x.latency.p50Ms + 15 * step(x.minute) },
    pipeline: { ...x.pipeline, projectorBatchMs: (x.pipeline.projectorBatchMs ?? 0) + 8 * step(x.minute) },
    postgresActivity:
      x.minute === 0
        ? null
        : {
            checkpoints: x.minute % 5 === 0 ? 1 : 0,
            checkpointsRequested: 0,
            checkpointWriteSeconds: 50,
            checkpointWriteBytesPerSecond: 4 * MiB + 6 * MiB * step(x.minute) + (x.minute % 2) * 0.1 * MiB,
            bgwriterWriteBytesPerSecond: 0,
            backendWriteBytesPerSecond: 0,
            readBytesPerSecond: MiB,
            bufferHitPercent: 99.5,
            tempBytesPerSecond: 0,
            autovacuumed: x.minute === 45 ? ['deliveries_p20260101'] : [],
            autoanalyzed: [],
            vacuumsRunning:
              x.minute === 44 ? [{ table: 'transfers', phase: 'scanning heap', seconds: 30 }] : [],
            deadTuples: 1_000 + x.minute,
          },
    host:
      x.minute === 0
        ? null
        : {
            cores: 2,
            busyCores: 1.5 + (x.minute % 3) * 0.05,
            iowaitCores: 0,
            stealCores: 0,
            processes: {
              node: 0.9,
              'postgres: backend': 0.3 + 0.2 * step(x.minute),
              'postgres: autovacuum': 0.05,
            },
            jsWorkloadMs: 100 + (x.minute % 4),
          },
  }));
  const summary = summarizeSoak(stepped, { warmupMinutes: 10, retentions: retentions(72) });

  it('sets each latency against the load of the shared parts, and names what moved with it', () => {
    const of = (latency: string) => summary.latencyAgainstLoad.find((l) => l.latency === latency)!;
    const webhook = of('webhook latency p50 (block mined → unconfirmed webhook)');
    // The two loads that took the step with it come first, in either order.
    expect(new Set(webhook.related.slice(0, 2).map((c) => c.load))).toEqual(
      new Set(['postgres checkpoint writes', 'CPU of postgres: backend']),
    );
    expect(webhook.related[1]?.r).toBeGreaterThan(0.95);
    expect(webhook.related[0]?.samples).toBe(51);
    expect(of('projector time per transaction').related.map((c) => c.load)).toContain(
      'postgres checkpoint writes',
    );
    // The CPU's wobble does not move with the step (every load, not the strongest three).
    const all = relateLatencyToLoad(soakSeries(stepped), 10 / 60, 100).find(
      (l) => l.latency === webhook.latency,
    )!;
    const cpu = all.related.find((c) => c.load === 'host CPU busy');
    expect(cpu?.samples).toBe(51);
    expect(Math.abs(cpu?.r ?? 1)).toBeLessThan(0.3);
    // The load is reported, never judged as a goal.
    expect(summary.growth.find((g) => g.quantity === 'postgres tables vacuumed')?.kind).toBe('load');
    expect(
      summary.goals.memoryFlat.offenders.some((o) => o.startsWith('postgres') || o.startsWith('host')),
    ).toBe(false);
  });

  it('prints the shared parts per sample and the latencies against them; a run without them prints neither', () => {
    const report = formatSoakReport(stepped, summary, 'soak');
    expect(report).toContain(
      "What the shared parts did per sample (the machine's CPU and PostgreSQL's in cores",
    );
    // The second table's row of minute 44 (the first is the per-sample table's).
    const rowsOf = (m: string) => report.split('\n').filter((l) => l.startsWith(`${m} `));
    const minute44 = rowsOf('44.0')[1]!;
    expect(minute44).toContain('transfers');
    expect(minute44).toContain('10.0 MiB/s');
    // PostgreSQL's processes together: backends 0.5 and autovacuum 0.05 after the step.
    expect(minute44).toMatch(/ 0\.55 /);
    // The machine's speed: the JS workload's time at minute 44 (100 + 44 % 4).
    expect(minute44).toMatch(/ 100 ms /);
    expect(rowsOf('43.0')[1]).toMatch(/ 103 ms /);
    expect(rowsOf('45.0')[1]).toContain('deliveries_p20260101');
    const against = report.split('\n').find((line) => line.startsWith('  webhook latency p50'))!;
    expect(against).toMatch(/postgres checkpoint writes \+0\.9\d/);
    expect(against).toMatch(/CPU of postgres: backend \+0\.9\d/);
    const old = formatSoakReport(
      samples,
      summarizeSoak(samples, { warmupMinutes: 10, retentions: retentions(72) }),
      'soak',
    );
    expect(old).not.toContain('What the shared parts did');
    expect(old).not.toContain("Pearson's r");
  });
});
