import { randomBytes } from 'node:crypto';
import { blockEventCodec, createKafka } from '@tributary/bus';
import type { BlockEvent } from '@tributary/schema';
import type { Admin, Kafka } from 'kafkajs';

const BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');

export interface TestTopic {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  groupId: string;
  /** A unique prefix, for the dead-letter topic of this test. */
  prefix: string;
  /** Sends one message per block event (or raw value), in order, to `partition`. */
  send(values: (BlockEvent | Buffer)[], partition?: number): Promise<void>;
  /** The group's committed offset per partition ('-1' when none). */
  committed(): Promise<string[]>;
  delete(): Promise<void>;
}

/** A new topic (and group name) on the test broker. */
export async function createTestTopic(partitions = 1): Promise<TestTopic> {
  const id = randomBytes(4).toString('hex');
  const prefix = `test-${id}.`;
  const topic = `${prefix}blocks`;
  const groupId = `test-consumer-${id}`;
  const kafka = createKafka({ brokers: BROKERS, clientId: `test-${id}` });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const created = [topic];
  return {
    kafka,
    admin,
    topic,
    groupId,
    prefix,
    async send(values, partition = 0) {
      // One request per message: separate record batches, so that small fetches hold few blocks.
      for (const v of values) {
        const value = Buffer.isBuffer(v) ? v : blockEventCodec.encode(v);
        await producer.send({ topic, messages: [{ key: '31337', value, partition }] });
      }
    },
    async committed() {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return (offsets?.partitions ?? []).sort((x, y) => x.partition - y.partition).map((p) => p.offset);
    },
    async delete() {
      await producer.disconnect();
      const topics = await admin.listTopics();
      await admin.deleteTopics({ topics: topics.filter((t) => t.startsWith(prefix) || created.includes(t)) });
      await admin.disconnect();
    },
  };
}

/** Polls `check` every 100 ms until it holds. */
export async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
