import { TOPICS } from '@tributary/schema';
import { createKafkaTopic, getTestSettings, uniqueName } from '@tributary/testkit';
import { createLogger } from '@tributary/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeadLetters } from './createDeadLetters.ts';
import { createKafka } from './createKafka.ts';
import { createLagProbe } from './createLagProbe.ts';

const settings = getTestSettings();
const kafka = createKafka({
  clientId: 'bus-test',
  brokers: settings.kafkaBrokers,
  logger: createLogger('bus-test', 'silent'),
});
const producer = kafka.producer();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await producer.disconnect();
});

describe('createLagProbe', () => {
  it('counts from the partition start before any commit, and from the committed offset after', async () => {
    const topic = await createKafkaTopic(uniqueName('lag'), 2);
    const groupId = uniqueName('lag-group');
    await producer.connect();
    await producer.send({
      topic,
      messages: [0, 1, 2, 3, 4].map((i) => ({ partition: i % 2, value: String(i) })),
    });
    const probe = createLagProbe(kafka, { groupId, topic });
    closers.push(() => probe.close());
    expect(await probe.lag()).toBe(5);

    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '2' }] });
    await admin.disconnect();
    expect(await probe.lag()).toBe(3); // partition 0: 3 messages, 2 committed; partition 1: 2 messages
    // A member's own lag: the partitions it holds only (a standby holds none).
    expect(await probe.lag([0])).toBe(1);
    expect(await probe.lag([1])).toBe(2);
    expect(await probe.lag([])).toBe(0);
  });
});

describe('createDeadLetters', () => {
  it('stores the original bytes with their origin and reason, and counts them', async () => {
    const prefix = `${uniqueName('dl')}.`;
    const topic = await createKafkaTopic(`${prefix}${TOPICS.deadLetters}`);
    await producer.connect();
    const counted: string[] = [];
    const dead = createDeadLetters({
      producer,
      topicPrefix: prefix,
      consumer: 'projector',
      onDeadLetter: (l) => counted.push(`${l.topic}@${l.offset}`),
    });
    await dead.send({
      topic: 'evm.blocks.v1',
      partition: 0,
      offset: '41',
      key: Buffer.from('31337'),
      value: Buffer.from('{not json'),
      reason: 'message is not JSON',
    });
    expect(counted).toEqual(['evm.blocks.v1@41']);

    const consumer = kafka.consumer({ groupId: uniqueName('dl-read') });
    closers.push(() => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const got = await new Promise<{ value: string; headers: Record<string, string> }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
          resolve({ value: String(message.value), headers });
        },
      });
    });
    expect(got.value).toBe('{not json');
    expect(got.headers).toMatchObject({
      'x-source-topic': 'evm.blocks.v1',
      'x-source-partition': '0',
      'x-source-offset': '41',
      'x-consumer': 'projector',
      'x-reason': 'message is not JSON',
    });
  });
});
