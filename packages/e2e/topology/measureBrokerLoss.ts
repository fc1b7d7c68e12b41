import { createProducer, ensureTopics } from '@tributary/bus';
import type { Kafka } from 'kafkajs';
import { type Pause, measurePause } from './measurePause.ts';

export interface BrokerLoss {
  messages: number;
  /** Acknowledged (acks=-1, two in-sync copies at least) by the producer. */
  acknowledged: number;
  /** Distinct messages a new consumer group read back from the topic. */
  readBack: number;
  killedBroker: number;
  pause: Pause;
}

/**
 * One of three brokers lost under writes: an idempotent producer (the follower's) writes
 * `messages` numbered messages one request at a time to a topic of three copies needing two; the
 * leader of its partition is SIGKILLed a third of the way; then a new consumer group reads the
 * topic back, with the broker still down, and what it finds is counted.
 */
export async function measureBrokerLoss(o: {
  kafka: Kafka;
  topic: string;
  messages: number;
  killBroker: (id: number) => Promise<void>;
  log: (line: string) => void;
}): Promise<BrokerLoss> {
  // As the services do (untilUp): a cluster just formed may not know the new topic everywhere yet.
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureTopics(o.kafka, [{ topic: o.topic }], { replication: { factor: 3, minInsync: 2 } });
      break;
    } catch (err) {
      if (attempt >= 10) throw err;
      o.log(`kafka: the topic is not usable yet (${String(err)}), trying again`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  const admin = o.kafka.admin();
  await admin.connect();
  const { topics } = await admin.fetchTopicMetadata({ topics: [o.topic] });
  await admin.disconnect();
  const leader = topics[0]?.partitions[0]?.leader as number;
  const producer = createProducer(o.kafka, 'ordered');
  await producer.connect();
  const ackTimes: number[] = [];
  let killedAt = 0;
  let killing: Promise<void> = Promise.resolve();
  for (let i = 0; i < o.messages; i++) {
    if (i === Math.floor(o.messages / 3)) {
      o.log(`kafka: SIGKILL broker ${leader}, the partition's leader, after ${i} messages`);
      // The pause counts from the moment the broker is gone.
      killing = o.killBroker(leader).then(() => {
        killedAt = Date.now();
      });
      killing.catch(() => undefined); // awaited, and so thrown, once the writes are done
    }
    await producer.send({ topic: o.topic, acks: -1, messages: [{ key: 'k', value: String(i) }] });
    ackTimes.push(Date.now());
  }
  await killing;
  await producer.disconnect();
  const readBack = await readDistinct(o.kafka, o.topic, o.messages);
  return {
    messages: o.messages,
    acknowledged: ackTimes.length,
    readBack,
    killedBroker: leader,
    pause: measurePause(ackTimes, killedAt),
  };
}

/** Distinct values read from the start of the topic, once `expected` are seen or none came for 30 s. */
async function readDistinct(kafka: Kafka, topic: string, expected: number): Promise<number> {
  const consumer = kafka.consumer({ groupId: `${topic}-reader` });
  const seen = new Set<string>();
  let lastAt = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      seen.add(String(message.value));
      lastAt = Date.now();
    },
  });
  while (seen.size < expected && Date.now() - lastAt < 30_000) await new Promise((r) => setTimeout(r, 200));
  await consumer.disconnect();
  return seen.size;
}
