import { randomUUID } from 'node:crypto';
import { getTestSettings, uniqueName } from '@tributary/testkit';
import { webhookJob } from '@tributary/schema';
import { enqueueDeliveries } from '@tributary/webhooks';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The enqueue contract the matcher uses (@tributary/webhooks), checked where its jobs are consumed.
let queue: Queue;

beforeAll(() => {
  queue = openTestWebhookQueue(getTestSettings().redisUrl, uniqueName('q'));
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
});

const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ deliveryId: randomUUID(), jobId: `stream${i}_31337_0xb_u` }));

describe('enqueueDeliveries', () => {
  it('puts deliveries into batch jobs of at most the batch size, a lone one into a job of its own', async () => {
    const many = items(120);
    const lone = items(1);
    await enqueueDeliveries(queue, many, 50);
    await enqueueDeliveries(queue, lone, 50);
    const jobs = await queue.getJobs(['waiting']);
    const data = jobs.map((j) => webhookJob.parse(j.data));
    const batches = data.flatMap((d) => (d.v === 2 ? [d.deliveryIds] : []));
    expect(batches.map((b) => b.length).sort()).toEqual([20, 50, 50]);
    expect(batches.flat().sort()).toEqual(many.map((i) => i.deliveryId).sort());
    expect(data.filter((d) => d.v === 1)).toEqual([{ v: 1, deliveryId: lone[0]!.deliveryId }]);
    expect(jobs.find((j) => j.data.v === 1)?.id).toBe(lone[0]!.jobId);
    // A batch job's id: its size and the first 32 hex digits of the sha256 of its members' own job
    // ids, one a line (sha256sum of "stream100_31337_0xb_u" to "stream119_31337_0xb_u" for the last).
    expect(jobs.map((j) => j.id).sort()).toEqual([
      'batch_20_d985fae4e98e5299b1d566d0f4369f8f',
      'batch_50_a866f2cc7068ed85e1f4a3112053ffa4',
      'batch_50_d76539df597b8d5294c0292496375523',
      'stream0_31337_0xb_u',
    ]);
  });

  it('adds the same deliveries only once (a replayed block event), other members as a new job', async () => {
    const list = items(3);
    await enqueueDeliveries(queue, list);
    const before = await queue.getWaitingCount();
    await enqueueDeliveries(queue, list);
    expect(await queue.getWaitingCount()).toBe(before);
    await enqueueDeliveries(queue, list.slice(1));
    expect(await queue.getWaitingCount()).toBe(before + 1);
  });
});
