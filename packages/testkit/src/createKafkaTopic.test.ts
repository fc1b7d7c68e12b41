import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { createKafkaTopic } from './createKafkaTopic.ts';
import { getTestSettings } from './testSettings.ts';
import { uniqueName } from './uniqueName.ts';

const settings = getTestSettings();
const kafka = new Kafka({
  clientId: 'testkit-test',
  brokers: settings.kafkaBrokers,
  logLevel: logLevel.NOTHING,
});
const admin = kafka.admin();
const created: string[] = [];

afterAll(async () => {
  await admin.connect();
  await admin.deleteTopics({ topics: created }).catch(() => {});
  await admin.disconnect();
});

async function consume(topic: string, count: number) {
  const consumer = kafka.consumer({ groupId: uniqueName('testkit-group'), maxBytesPerPartition: 16 << 20 });
  const received: { key: string; value: Buffer; partition: number }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
      consumer
        .run({
          eachMessage: async ({ message, partition }) => {
            received.push({ key: message.key!.toString(), value: message.value!, partition });
            if (received.length === count) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return received;
}

describe('Kafka round trip', () => {
  it('creates a topic with the partitions asked for, and a fresh group reads back every keyed message', async () => {
    const topic = await createKafkaTopic(uniqueName('testkit-topic'), 3);
    created.push(topic);
    await admin.connect();
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.disconnect();
    expect(metadata.topics[0]?.partitions).toHaveLength(3);

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        { key: '31337:1', value: JSON.stringify({ number: 1 }) },
        { key: '31337:2', value: JSON.stringify({ number: 2 }) },
        { key: '31337:1', value: JSON.stringify({ number: 3 }) },
      ],
    });
    await producer.disconnect();

    const received = await consume(topic, 3);
    const byKey = (key: string) =>
      received.filter((m) => m.key === key).map((m) => JSON.parse(m.value.toString()) as { number: number });
    // Same key => same partition => order kept.
    expect(byKey('31337:1')).toEqual([{ number: 1 }, { number: 3 }]);
    expect(byKey('31337:2')).toEqual([{ number: 2 }]);
    const partitionsOfKey1 = new Set(received.filter((m) => m.key === '31337:1').map((m) => m.partition));
    expect(partitionsOfKey1.size).toBe(1);
  });

  it('carries a 4 MiB message (a big block) on a topic that allows it', async () => {
    const topic = await createKafkaTopic(uniqueName('testkit-big'), 1, {
      configEntries: { 'max.message.bytes': String(16 << 20) },
    });
    created.push(topic);
    const value = Buffer.alloc(4 << 20, 7);
    value.write('block-header', 0);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'big', value }] });
    await producer.disconnect();

    const [message] = await consume(topic, 1);
    expect(message?.value.length).toBe(4 << 20);
    expect(message?.value.subarray(0, 12).toString()).toBe('block-header');
    expect(message?.value.equals(value)).toBe(true);
  });
});
