import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { getTestSettings } from './testSettings.ts';
import { uniqueName } from './uniqueName.ts';

// BullMQ round trip on the real Redis: the webhook-sender's shape (deterministic job ids, a worker).
const settings = getTestSettings();
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function connection() {
  const redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: null });
  closers.push(() => redis.quit());
  return redis;
}

describe('BullMQ on Redis', () => {
  it('a worker processes a job and its return value comes back; a duplicate job id is not enqueued twice', async () => {
    const name = uniqueName('testkit-queue');
    const queue = new Queue<{ streamId: string; block: number }>(name, { connection: connection() });
    closers.push(async () => {
      await queue.obliterate({ force: true });
      await queue.close();
    });
    const events = new QueueEvents(name, { connection: connection() });
    closers.push(() => events.close());
    await events.waitUntilReady();

    const seen: string[] = [];
    const worker = new Worker<{ streamId: string; block: number }, { delivered: string }>(
      name,
      async (job) => {
        seen.push(job.id!);
        return { delivered: `${job.data.streamId}@${job.data.block}` };
      },
      { connection: connection(), concurrency: 2 },
    );
    closers.push(() => worker.close());

    // BullMQ rejects custom ids containing ':' (its key separator).
    const jobId = 'stream-1_31337_42_false';
    const job = await queue.add('deliver', { streamId: 'stream-1', block: 42 }, { jobId });
    const duplicate = await queue.add('deliver', { streamId: 'stream-1', block: 42 }, { jobId });
    expect(duplicate.id).toBe(job.id);

    const result = await job.waitUntilFinished(events, 30_000);
    expect(result).toEqual({ delivered: 'stream-1@42' });
    expect(seen).toEqual([jobId]);
    expect(await queue.getJobCounts('completed', 'waiting', 'failed')).toMatchObject({
      completed: 1,
      waiting: 0,
      failed: 0,
    });

    const redis = connection();
    expect(await redis.ping()).toBe('PONG');
  });
});
