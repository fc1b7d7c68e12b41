import { getTestSettings, uniqueName } from '@tributary/testkit';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { openWebhookQueue } from './openWebhookQueue.ts';
import { openWebhookWorker } from './openWebhookWorker.ts';

// The sender's worker as main.ts opens it, on a real Redis: it takes the jobs of the webhook
// queue under its prefix, with the retry schedule it is given.
const settings = getTestSettings();
const closing: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close().catch(() => undefined);
});

describe('openWebhookWorker', () => {
  it("runs the webhook queue's jobs, retries on the backoff strategy it is given, and reports nothing broken", async () => {
    const prefix = uniqueName('w');
    const broken: unknown[] = [];
    const queue = openWebhookQueue({
      redis: { url: settings.redisUrl },
      prefix,
      mode: 'waits',
      onBroken: (e) => broken.push(e),
    });
    closing.push(queue);
    const runs: { id: string; attempt: number }[] = [];
    const backoffAsked: number[] = [];
    const worker = openWebhookWorker({
      redis: { url: settings.redisUrl },
      prefix,
      processor: async (job: Job) => {
        runs.push({ id: String(job.id), attempt: job.attemptsMade });
        if (job.attemptsMade === 0) throw new Error('first attempt fails');
        return 'done';
      },
      settings: {
        concurrency: 2,
        settings: {
          backoffStrategy: (attemptsMade: number) => {
            backoffAsked.push(attemptsMade);
            return 50;
          },
        },
      },
      onBroken: (e) => broken.push(e),
    });
    closing.push(worker);
    const done = new Promise<void>((resolve) => worker.on('completed', () => resolve()));
    await queue.add('delivery', { n: 1 }, { jobId: 'job-1', attempts: 2, backoff: { type: 'custom' } });
    await done;
    expect(runs.map((r) => [r.id, r.attempt])).toEqual([
      ['job-1', 0],
      ['job-1', 1],
    ]);
    expect(backoffAsked).toEqual([1]);
    expect(worker.isRunning()).toBe(true);
    expect(broken).toEqual([]);
  });
});
