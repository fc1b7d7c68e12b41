import { percentile } from '@tributary/testkit/bench';
import type { ChaosStack } from '../chaos/startChaosStack.ts';
import { APP_NAMES, type AppName } from '../chaos/superviseApp.ts';
import type { BlockDriver } from './driveSoakBlocks.ts';
import { readKafkaDisk } from './readKafkaDisk.ts';
import { readPostgresSizes } from './readPostgresSizes.ts';
import { readRedisMemory } from './readRedisMemory.ts';
import { type PromSeries, metricSum, readServiceMetrics, serviceSample } from './readServiceMetrics.ts';
import type { SoakSample } from './soakSample.ts';
import type { ApiCounts } from './startApiLoad.ts';
import type { SoakReceiver } from './startSoakReceiver.ts';

const OUTCOMES = ['delivered', 'retry', 'gave_up', 'held'] as const;

/**
 * Takes the soak's samples: every service's /metrics, PostgreSQL's catalog, the broker's log dir,
 * Redis's INFO, and what the receiver, the driver and the API load counted since the previous one.
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
  let attempts: Record<string, number> | null = null;
  // Start the intervals now: what came before the first sample is not counted.
  p.receiver.drain();
  p.driver.drain();
  p.api.drain();

  return {
    async take(minute) {
      const metrics = new Map<AppName, PromSeries[] | null>(
        await Promise.all(
          APP_NAMES.map(async (app) => [app, await readServiceMetrics(p.stack.opsUrls.get(app)!)] as const),
        ),
      );
      const pg = await readPostgresSizes(p.stack.pool, wal).catch(() => null);
      if (pg) wal = { lsn: pg.lsn, atMs: pg.atMs };
      const redis = await readRedisMemory(p.stack.servers.redisUrl);
      const kafka = readKafkaDisk(p.kafkaLogDir);
      const now = Date.now();
      const seconds = (now - previousAt) / 1000;
      previousAt = now;
      const received = p.receiver.drain();
      const mined = p.driver.drain();
      const api = p.api.drain();

      const services: SoakSample['services'] = {};
      const unplannedExits: SoakSample['unplannedExits'] = {};
      for (const app of APP_NAMES) {
        const s = metrics.get(app);
        const sample = s ? serviceSample(s) : null;
        if (sample) services[app] = sample;
        unplannedExits[app] = p.stack.apps.get(app)!.crashes.length;
      }
      const of = (app: AppName, name: string, match?: Record<string, string>) => {
        const s = metrics.get(app);
        return s ? metricSum(s, name, match) : null;
      };
      // Counters restart at 0 with their process: a drop counts what the new one did.
      const nowAttempts = Object.fromEntries(
        OUTCOMES.map((outcome) => [
          outcome,
          of('webhook-sender', 'tributary_webhook_attempts_total', { outcome }) ?? 0,
        ]),
      );
      const attemptsPerSecond = Object.fromEntries(
        OUTCOMES.map((k) => {
          const before = attempts?.[k] ?? 0;
          const delta = nowAttempts[k]! >= before ? nowAttempts[k]! - before : nowAttempts[k]!;
          return [k, attempts ? delta / seconds : Number.NaN];
        }),
      );
      attempts = nowAttempts;
      const sorted = received.latenciesMs.sort((a, b) => a - b);
      const apiSorted = api.latenciesMs.sort((a, b) => a - b);
      return {
        minute,
        at: new Date(now).toISOString(),
        services,
        unplannedExits,
        postgres: pg?.sizes ?? null,
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
