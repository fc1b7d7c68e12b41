import { percentile } from '@tributary/testkit/bench';
import type { ChaosStack } from '../chaos/startChaosStack.ts';
import {
  APP_NAMES,
  type AppName,
  cpuSecondsBetween,
  cpuSnapshot,
  hostCpuBetween,
  timeJsWorkloadInChild,
} from '@tributary/testkit/bench';
import type { BlockDriver } from './driveSoakBlocks.ts';
import { readKafkaDisk } from './readKafkaDisk.ts';
import { postgresActivityBetween } from './postgresActivityBetween.ts';
import { type PostgresCounters, readPostgresActivity } from './readPostgresActivity.ts';
import { readPostgresSizes } from './readPostgresSizes.ts';
import { readRedisMemory } from './readRedisMemory.ts';
import { type PromSeries, metricSum, readServiceMetrics, serviceSample } from './readServiceMetrics.ts';
import type { HostSample, SoakSample } from './soakSample.ts';
import type { ApiCounts } from './startApiLoad.ts';
import type { SoakReceiver } from './startSoakReceiver.ts';

const OUTCOMES = ['delivered', 'retry', 'gave_up', 'held'] as const;

/**
 * Takes the soak's samples: every service's /metrics, PostgreSQL's catalog and activity counters,
 * the broker's log dir, Redis's INFO, the machine's CPU, and what the receiver, the driver and the
 * API load counted since the previous one.
 */
export function createSoakSampler(p: {
  stack: ChaosStack;
  receiver: SoakReceiver;
  driver: BlockDriver;
  api: { drain(): ApiCounts };
  kafkaLogDir: string;
}): { take(minute: number): Promise<SoakSample> } {
  let previousAt = Date.now();
  let wal: { lsn: string; atMs: number } | null = null;
  let pgCounters: PostgresCounters | null = null;
  let processes = cpuSnapshot();
  const counters = new Map<string, number>();
  /** A counter's increase since the previous sample (null at the first, or while it is missing). */
  const increase = (key: string, value: number | null): number | null => {
    if (value === null) return null;
    const before = counters.get(key);
    counters.set(key, value);
    if (before === undefined) return null;
    // Counters restart at 0 with their process: a drop counts what the new one did.
    return value >= before ? value - before : value;
  };
  // Start the intervals now: what came before the first sample is not counted.
  p.receiver.drain();
  p.driver.drain();
  p.api.drain();
  void readPostgresActivity(p.stack.pool)
    .then((c) => {
      pgCounters ??= c;
    })
    .catch(() => {});

  return {
    async take(minute) {
      const metrics = new Map<AppName, PromSeries[] | null>(
        await Promise.all(
          APP_NAMES.map(async (app) => [app, await readServiceMetrics(p.stack.opsUrls.get(app)!)] as const),
        ),
      );
      const pg = await readPostgresSizes(p.stack.pool, wal).catch(() => null);
      if (pg) wal = { lsn: pg.lsn, atMs: pg.atMs };
      const pgNow = await readPostgresActivity(p.stack.pool).catch(() => null);
      const postgresActivity = pgCounters && pgNow ? postgresActivityBetween(pgCounters, pgNow) : null;
      if (pgNow) pgCounters = pgNow;
      // One read of /proc: every process's CPU and the machine's counters, at the same moment.
      const processesNow = cpuSnapshot();
      const before = processes.host;
      const after = processesNow.host;
      // The machine's speed, timed in a child process once the interval's CPU is read: the child's
      // CPU lands in the next interval, under the soak's group (a reaped child counts in its parent).
      const speed = await timeJsWorkloadInChild().catch(() => null);
      const host: HostSample | null =
        before && after
          ? {
              ...hostCpuBetween(before, after),
              processes: processGroupCores(processes, processesNow, (after.atMs - before.atMs) / 1000),
              ...withSpeed(speed),
            }
          : null;
      processes = processesNow;
      const redis = await readRedisMemory(p.stack.servers.redisUrl);
      const kafka = readKafkaDisk(p.kafkaLogDir);
      const now = Date.now();
      const seconds = (now - previousAt) / 1000;
      previousAt = now;
      const received = p.receiver.drain();
      const mined = p.driver.drain();
      const api = p.api.drain();
      const of = (app: AppName, name: string, match?: Record<string, string>) => {
        const s = metrics.get(app);
        return s ? metricSum(s, name, match) : null;
      };
      const perSecond = (v: number | null) => (v === null ? Number.NaN : v / seconds);
      /** A histogram's mean over the interval, in ms. */
      const meanMs = (app: AppName, name: string) => {
        const sum = increase(`${app} ${name}_sum`, of(app, `${name}_sum`));
        const count = increase(`${app} ${name}_count`, of(app, `${name}_count`));
        return sum === null || !count ? null : (1000 * sum) / count;
      };

      const services: SoakSample['services'] = {};
      const unplannedExits: SoakSample['unplannedExits'] = {};
      for (const app of APP_NAMES) {
        const s = metrics.get(app);
        const sample = s ? serviceSample(s) : null;
        const cpu = increase(`${app} cpu`, of(app, 'process_cpu_seconds_total'));
        if (sample) services[app] = { ...sample, cpuCores: cpu === null ? null : cpu / seconds };
        unplannedExits[app] = p.stack.apps.get(app)!.crashes.length;
      }
      const attemptsPerSecond = Object.fromEntries(
        OUTCOMES.map((outcome) => [
          outcome,
          perSecond(
            increase(
              `attempts ${outcome}`,
              of('webhook-sender', 'tributary_webhook_attempts_total', { outcome }),
            ),
          ),
        ]),
      );
      const sorted = received.latenciesMs.sort((a, b) => a - b);
      const apiSorted = api.latenciesMs.sort((a, b) => a - b);
      return {
        minute,
        at: new Date(now).toISOString(),
        services,
        unplannedExits,
        postgres: pg?.sizes ?? null,
        postgresActivity,
        host,
        kafka,
        redis,
        latency: {
          webhooks: sorted.length,
          p50Ms: percentile(sorted, 50),
          p90Ms: percentile(sorted, 90),
          p99Ms: percentile(sorted, 99),
          maxMs: sorted[sorted.length - 1] ?? Number.NaN,
        },
        delivery: {
          deliveredPerSecond: received.delivered / seconds,
          requestsPerSecond: received.requests / seconds,
          failedPerSecond: received.failed / seconds,
          attemptsPerSecond,
          pending: of('webhook-sender', 'tributary_deliveries', { status: 'pending' }),
          oldestPendingSeconds: of('webhook-sender', 'tributary_deliveries_oldest_pending_seconds'),
        },
        pipeline: {
          blocks: mined.blocks,
          logs: mined.logs,
          followerLagBlocks: of('chain-follower', 'tributary_follower_lag_blocks'),
          projectorLagMessages: of('projector', 'tributary_consumer_lag_messages'),
          matcherLagMessages: of('stream-matcher', 'tributary_consumer_lag_messages'),
          projectorBatchMs: meanMs('projector', 'tributary_projector_batch_duration_seconds'),
          matcherBlockMs: meanMs('stream-matcher', 'tributary_matcher_block_duration_seconds'),
          relayPassMs: meanMs('webhook-sender', 'tributary_relay_pass_duration_seconds'),
        },
        api: {
          requests: api.requests,
          errors: api.errors,
          p50Ms: percentile(apiSorted, 50),
          p99Ms: percentile(apiSorted, 99),
        },
      };
    },
  };
}

const withSpeed = (ms: number | null) => (ms === null ? {} : { jsWorkloadMs: Math.round(ms * 10) / 10 });

/**
 * Every process's CPU over the interval in cores, grouped as cpuSecondsBetween groups them: the
 * soak's own process by name, PostgreSQL's by role (backends, autovacuum, checkpointer, ...), the
 * rest by command (node for the five services, java for Kafka, redis-server, anvil, and whatever
 * else ran on the machine).
 */
function processGroupCores(
  before: ReturnType<typeof cpuSnapshot>,
  after: ReturnType<typeof cpuSnapshot>,
  seconds: number,
): Record<string, number> {
  const { byProcess } = cpuSecondsBetween(before, after, { 'soak (load, receivers, sampler)': process.pid });
  return Object.fromEntries(
    Object.entries(byProcess).map(([group, s]) => [group, Math.round((100 * s) / seconds) / 100]),
  );
}
