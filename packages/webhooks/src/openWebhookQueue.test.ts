import { type RedisCutProxy, getTestSettings, startRedisCutProxy, uniqueName } from '@tributary/testkit';
import type { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { type QueueRedisMode, WEBHOOK_QUEUE_EVENTS_MAX_LEN, openWebhookQueue } from './openWebhookQueue.ts';

// Redis going away while BullMQ sets a queue's connection up (a proxy cuts each connection at
// BullMQ's version check for a while): a fast-failing queue keeps that failure for good, so the
// one way our services open the queue tells them, and they restart; a waiting one gets through.
const settings = getTestSettings();
let proxy: RedisCutProxy | undefined;
const queues: Queue[] = [];

afterEach(async () => {
  for (const q of queues.splice(0)) await q.close().catch(() => undefined);
  await proxy?.close();
  proxy = undefined;
});

function open(mode: QueueRedisMode, url: string, broken: unknown[]): Queue {
  const queue = openWebhookQueue({
    redis: { url },
    prefix: uniqueName('q'),
    mode,
    onBroken: (e) => broken.push(e),
  });
  queue.on('error', () => undefined);
  queues.push(queue);
  return queue;
}

const until = async (what: string, done: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('openWebhookQueue when Redis goes away during set-up', () => {
  it('failsFast: reports the broken queue, which fails every command even once Redis answers again', async () => {
    proxy = await startRedisCutProxy({ target: settings.redisUrl, windowMs: 2_000 });
    const broken: unknown[] = [];
    const queue = open('failsFast', proxy.url, broken);
    await until('onBroken', () => broken.length > 0);
    expect(broken).toHaveLength(1);
    expect(proxy.cuts()).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 2_500)); // the window is over: Redis answers through the proxy
    await expect(queue.getWaitingCount()).rejects.toThrow();
  });

  it('waits: gets through once Redis answers and never reports a broken queue', async () => {
    proxy = await startRedisCutProxy({ target: settings.redisUrl, windowMs: 2_000 });
    const broken: unknown[] = [];
    const queue = open('waits', proxy.url, broken);
    await queue.add('probe', { n: 1 }, { jobId: 'probe-1' });
    expect(await queue.getWaitingCount()).toBe(1);
    expect(proxy.cuts()).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  it('waits and failsFast: a connection that ended for good is reported once', async () => {
    for (const mode of ['waits', 'failsFast'] as const) {
      const broken: unknown[] = [];
      const queue = open(mode, settings.redisUrl, broken);
      await queue.waitUntilReady();
      expect(broken).toEqual([]);
      // What ioredis does when it gives up: the client ends and never reconnects.
      (await queue.client).disconnect();
      await until('onBroken', () => broken.length > 0);
      expect(broken).toHaveLength(1);
    }
  });

  it('every mode: a queue opened on a Redis that answers is ready and reports nothing', async () => {
    for (const mode of ['waits', 'failsFast', 'once'] as const) {
      const broken: unknown[] = [];
      const queue = open(mode, settings.redisUrl, broken);
      await queue.waitUntilReady();
      expect(await queue.getWaitingCount()).toBe(0);
      expect(broken).toEqual([]);
    }
  });
});

describe('openWebhookQueue event stream', () => {
  it('keeps its event stream near WEBHOOK_QUEUE_EVENTS_MAX_LEN however many jobs come and go', async () => {
    const queue = open('waits', settings.redisUrl, []);
    await queue.waitUntilReady();
    const client = await queue.client;
    await until(
      'the meta key',
      async () => (await client.hget(queue.toKey('meta'), 'opts.maxLenEvents')) !== null,
    );
    expect(await client.hget(queue.toKey('meta'), 'opts.maxLenEvents')).toBe(
      String(WEBHOOK_QUEUE_EVENTS_MAX_LEN),
    );
    // Each add appends an event ("added", and "waiting"): five times the cap's worth of jobs.
    const jobs = 5 * WEBHOOK_QUEUE_EVENTS_MAX_LEN;
    for (let i = 0; i < jobs; i += 500)
      await queue.addBulk(Array.from({ length: 500 }, (_, k) => ({ name: 'probe', data: { n: i + k } })));
    expect(await queue.count()).toBe(jobs);
    // BullMQ's client interface leaves XLEN out; the client is ioredis, which has it.
    const length = await (client as unknown as { xlen(key: string): Promise<number> }).xlen(
      queue.toKey('events'),
    );
    // XADD MAXLEN ~ trims whole macro nodes of Redis's stream (100 entries each by default).
    expect(length).toBeGreaterThanOrEqual(WEBHOOK_QUEUE_EVENTS_MAX_LEN);
    expect(length).toBeLessThanOrEqual(WEBHOOK_QUEUE_EVENTS_MAX_LEN + 200);
    await queue.obliterate({ force: true });
  });
});
