import type { RedisConnectionOptions } from '@tributary/config';
import { WEBHOOK_QUEUE, openWebhookQueue } from '@tributary/webhooks';
import { Worker } from 'bullmq';
import { type Pause, measurePause } from './measurePause.ts';

export interface RedisFailover {
  jobs: number;
  /** Adds Redis acknowledged. */
  acknowledged: number;
  /**
   * Acknowledged by the old master but not on the replica it promoted (replication is
   * asynchronous): added again by the relay pass, as the sender's outbox relay does from PostgreSQL.
   */
  lostWithMaster: number;
  /** Distinct jobs a worker ran, and runs of a job already run (at-least-once). */
  processed: number;
  processedAgain: number;
  killedMasterPort: number;
  /** Of the adds, and of the worker's completions. */
  addPause: Pause;
  workPause: Pause;
}

/**
 * Redis failed over under delivery load: jobs are added to the webhook queue (opened as the
 * services open it, through the sentinels) one at a time while a worker runs them; the master is
 * SIGKILLed a third of the way and the sentinels promote its replica. Then one relay pass adds
 * again each acknowledged job that Redis no longer has, and every job must run.
 */
export async function measureRedisFailover(o: {
  redis: RedisConnectionOptions;
  prefix: string;
  jobs: number;
  killMaster: () => Promise<number>;
  log: (line: string) => void;
}): Promise<RedisFailover> {
  const queue = openWebhookQueue({
    redis: o.redis,
    prefix: o.prefix,
    mode: 'waits',
    onBroken: (err) => o.log(`redis: the queue broke while it was set up: ${String(err)}`),
  });
  queue.on('error', () => undefined);
  const runs = new Map<string, number>();
  const doneTimes: number[] = [];
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job) => {
      runs.set(job.id as string, (runs.get(job.id as string) ?? 0) + 1);
      doneTimes.push(Date.now());
    },
    { connection: { ...o.redis, maxRetriesPerRequest: null }, prefix: o.prefix, concurrency: 8 },
  );
  worker.on('error', () => undefined);
  const id = (i: number) => `job-${i}`;
  const ackTimes: number[] = [];
  let killedAt = 0;
  let killedMasterPort = 0;
  let killing: Promise<void> = Promise.resolve();
  try {
    for (let i = 0; i < o.jobs; i++) {
      if (i === Math.floor(o.jobs / 3)) {
        o.log(`redis: SIGKILL the master after ${i} jobs`);
        // The pause counts from the moment the master is gone.
        killing = o.killMaster().then((port) => {
          killedAt = Date.now();
          killedMasterPort = port;
        });
        killing.catch(() => undefined); // awaited, and so thrown, once the adds are done
      }
      await queue.add('delivery', { i }, { jobId: id(i), removeOnComplete: false });
      ackTimes.push(Date.now());
    }
    await killing;
    // The relay pass: a job neither run nor in Redis went with the old master.
    let lostWithMaster = 0;
    for (let i = 0; i < o.jobs; i++) {
      if (runs.has(id(i)) || (await queue.getJob(id(i)))) continue;
      lostWithMaster++;
      await queue.add('delivery', { i }, { jobId: id(i), removeOnComplete: false });
    }
    let lastCount = -1;
    let lastAt = Date.now();
    while (runs.size < o.jobs && Date.now() - lastAt < 30_000) {
      if (runs.size !== lastCount) [lastCount, lastAt] = [runs.size, Date.now()];
      await new Promise((r) => setTimeout(r, 200));
    }
    return {
      jobs: o.jobs,
      acknowledged: ackTimes.length,
      lostWithMaster,
      processed: runs.size,
      processedAgain: [...runs.values()].reduce((sum, n) => sum + n - 1, 0),
      killedMasterPort,
      addPause: measurePause(ackTimes, killedAt),
      workPause: measurePause(
        doneTimes.sort((a, b) => a - b),
        killedAt,
      ),
    };
  } finally {
    await worker.close();
    await queue.close();
  }
}
