import type { Pool } from '@tributary/db';
import { listPendingJobs } from '@tributary/db/streams';
import { type OutageLog, createOutageLog } from '@tributary/runtime';
import { BACKFILL_JOB_PRIORITY, jobIdFor, renameThenEnqueue } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface OutboxRelay {
  /** One pass over every pending delivery; resolves with the number enqueued again. */
  pass(): Promise<number>;
  /** Whether the last pass completed (readiness). */
  healthy(): boolean;
  stop(): Promise<void>;
}

/** Pending rows read per query of a pass. */
const PAGE_SIZE = 1_000;

/**
 * PostgreSQL is the source of truth for webhooks; Redis only holds the work queue. Every
 * `intervalMs` the relay walks the pending deliveries (a page at a time, in id order) and checks,
 * in one pipelined round trip per page, that the BullMQ job each row names still exists. A
 * delivery whose job is gone (Redis restarted empty, was flushed, failed over to a replica that
 * missed the last writes; a writer that died between its commit and its enqueue) is named to the
 * job `<id>_relay` (only if its row still names the job seen, so a delivery that moved on is left
 * alone) and enqueued. Rows whose job was named less than `graceMs` ago are skipped: their writer
 * is about to enqueue them. Every sender runs one; their work is idempotent (job ids).
 */
export function createOutboxRelay(deps: {
  pool: Pool;
  queue: Queue;
  logger: Logger;
  intervalMs: number;
  graceMs: number;
  onRequeued?: (n: number) => void;
  /** Each completed pass: how long it took and how many pending rows it walked. */
  onPass?: (p: { seconds: number; walked: number }) => void;
}): OutboxRelay {
  const outage: OutageLog = createOutageLog(deps.logger, 'outbox relay');
  let lastOk = true;
  let stopped = false;
  let running: Promise<number> | undefined;

  async function missingJobs(jobIds: (string | null)[]): Promise<boolean[]> {
    // BullMQ's client is an ioredis connection (its type names a narrower interface).
    const redis = (await deps.queue.client) as unknown as Redis;
    const pipeline = redis.pipeline();
    const asked: number[] = [];
    for (const [i, jobId] of jobIds.entries()) {
      if (jobId === null) continue;
      pipeline.exists(deps.queue.toKey(jobId));
      asked.push(i);
    }
    const missing = jobIds.map((j) => j === null);
    if (asked.length === 0) return missing;
    const results = (await pipeline.exec()) ?? [];
    for (const [n, i] of asked.entries()) {
      const [err, exists] = results[n] ?? [new Error('no reply'), 0];
      if (err) throw err;
      missing[i] = exists === 0;
    }
    return missing;
  }

  async function runPass(): Promise<number> {
    const started = performance.now();
    let afterId: string | undefined;
    let requeued = 0;
    let walked = 0;
    for (;;) {
      if (stopped) break;
      const page = await listPendingJobs(deps.pool, { afterId, limit: PAGE_SIZE, graceMs: deps.graceMs });
      if (page.length === 0) break;
      walked += page.length;
      afterId = page[page.length - 1]!.deliveryId;
      const missing = await missingJobs(page.map((p) => p.jobId));
      const lost = page.filter((_, i) => missing[i]);
      if (lost.length > 0) {
        // Named first: should the enqueue not happen, the next pass finds the job missing again.
        const renamed = await renameThenEnqueue(
          deps.pool,
          deps.queue,
          lost.map((p) => ({
            deliveryId: p.deliveryId,
            expected: p.jobId,
            jobId: jobIdFor({ for: 'relay', deliveryId: p.deliveryId }),
            attemptsBefore: p.attempts,
            delayMs: 0,
            ...(p.backfill ? { priority: BACKFILL_JOB_PRIORITY } : {}),
          })),
        );
        requeued += renamed.size;
      }
      if (page.length < PAGE_SIZE) break;
    }
    if (requeued > 0) {
      deps.logger.warn({ requeued }, 'pending deliveries whose job was missing enqueued again');
      deps.onRequeued?.(requeued);
    }
    if (!stopped) deps.onPass?.({ seconds: (performance.now() - started) / 1000, walked });
    return requeued;
  }

  const pass = () => {
    running ??= runPass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    pass().then(
      () => {
        lastOk = true;
        outage.ok();
      },
      (err: unknown) => {
        lastOk = false;
        outage.failed(err);
      },
    );
  }, deps.intervalMs);
  timer.unref();

  return {
    pass,
    healthy: () => lastOk,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
