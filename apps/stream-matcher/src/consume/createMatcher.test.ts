import { randomUUID } from 'node:crypto';
import { type Pool, createPool } from '@tributary/db';
import { insertStream } from '@tributary/db/streams';
import { createLogger } from '@tributary/runtime';
import { createKafka, createProducer, topicsFor } from '@tributary/bus';
import type { StreamChange } from '@tributary/schema';
import { createTestDatabase, getTestSettings, type TestDatabase, uniqueName } from '@tributary/testkit';
import { createOutageLog } from '@tributary/runtime';
import { openWebhookQueue } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlockReaders } from '../read/createBlockReaders.ts';
import { type Matcher, createMatcher } from './createMatcher.ts';

let db: TestDatabase;
let pool: Pool;
let accountId: string;
const matchers: Matcher[] = [];
const queues: Queue[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'r',
    's',
  ]);
});

afterAll(async () => {
  for (const m of matchers) {
    await m.stopIntake();
    await m.close();
  }
  for (const q of queues) await q.close();
  await pool?.end();
  await db?.drop();
});

async function newStream(): Promise<string> {
  const id = randomUUID();
  await insertStream(pool, {
    id,
    accountId,
    chainIds: [31337],
    config: {
      webhookUrl: 'http://127.0.0.1:9/h',
      description: 'd',
      tag: 't',
      chainIds: ['0x7a69'],
      includeNativeTxs: true,
    },
  });
  return id;
}

describe('matcher start-up', () => {
  it('loses no change published between the stream load and the change consumer joining', async () => {
    const settings = getTestSettings();
    const topicPrefix = `${uniqueName('race')}.`;
    const logger = createLogger('race', 'silent');
    const kafka = createKafka({ clientId: 'race', brokers: settings.kafkaBrokers, logger });
    const producer = createProducer(kafka, 'plain');
    await producer.connect();
    const publish = async (streamId: string) => {
      const change: StreamChange = { v: 1, streamId, kind: 'upsert', at: Date.now() };
      await producer.send({
        topic: topicsFor(topicPrefix).streamChanges,
        messages: [{ key: streamId, value: JSON.stringify(change) }],
      });
    };
    const before = await newStream();
    let during = '';
    const queue = openWebhookQueue({
      redis: { url: settings.redisUrl },
      prefix: uniqueName('q'),
      mode: 'failsFast',
      onBroken: () => undefined,
    });
    queues.push(queue);
    const matcher = createMatcher({
      pool,
      logger,
      clients: {
        kafka,
        kafkaOutage: createOutageLog(logger, 'kafka'),
        producer: createProducer(kafka, 'plain'),
        queue,
      },
      kafka: { topicPrefix, groupId: uniqueName('g') },
      watchdog: { stallMs: 60_000, exitAfterMs: 180_000 },
      reconcileMs: 30_000,
      budgetMs: 250,
      readers: createBlockReaders({ rpcUrls: new Map(), concurrency: 1 }),
      // The gateway creates a stream (PostgreSQL first, then the change) after the load read
      // PostgreSQL and before the change consumer has started.
      afterStreamsLoaded: async () => {
        during = await newStream();
        await publish(during);
      },
    });
    matchers.push(matcher);
    await matcher.start();
    expect(matcher.streamStatus(before)).toBe('active');
    const deadline = Date.now() + 20_000;
    while (matcher.streamStatus(during) === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(matcher.streamStatus(during)).toBe('active');

    // And changes keep flowing after start: pausing a stream removes it.
    await pool.query(`UPDATE streams SET status = 'paused' WHERE id = $1`, [before]);
    await publish(before);
    while (matcher.streamStatus(before) !== undefined && Date.now() < deadline + 20_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(matcher.streamStatus(before)).toBeUndefined();
    await producer.disconnect();
  });
});
