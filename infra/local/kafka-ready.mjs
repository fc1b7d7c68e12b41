// Kafka is usable only when a client can describe the cluster, create a topic, produce, and join a fresh
// consumer group that receives the message. Usage: node kafka-ready.mjs [brokers] [timeoutSeconds] [brokerCount]
// brokerCount (1): the brokers that must be registered (a cluster is ready once every node has joined; its
// round-trip topic gets the brokers' default copies, all of them).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

// kafkajs is a dependency of @tributary/testkit; resolve it from there (this script sits outside any package).
const require = createRequire(new URL('../../packages/testkit/package.json', import.meta.url));
const { Kafka, logLevel } = require('kafkajs');

const brokers = (process.argv[2] ?? process.env.KAFKA_BROKERS ?? '127.0.0.1:59092').split(',');
const timeoutMs = Number(process.argv[3] ?? 120) * 1000;
const brokerCount = Number(process.argv[4] ?? 1);
const deadline = Date.now() + timeoutMs;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Probing fails fast; the round trip keeps kafkajs' retries: the first group join on a fresh broker waits
// for __consumer_offsets to be created and meets COORDINATOR_NOT_AVAILABLE meanwhile.
const probe = new Kafka({
  clientId: 'tributary-kafka-ready',
  brokers,
  logLevel: logLevel.NOTHING,
  connectionTimeout: 3000,
  retry: { retries: 0 },
});
const kafka = new Kafka({ clientId: 'tributary-kafka-ready', brokers, logLevel: logLevel.NOTHING });

async function describeUntilUp() {
  let lastError;
  while (Date.now() < deadline) {
    const admin = probe.admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      await admin.disconnect();
      if (cluster.brokers.length >= brokerCount && cluster.controller !== null) return cluster;
      lastError = new Error(
        `${cluster.brokers.length} of ${brokerCount} broker(s) registered, controller ${cluster.controller ?? 'none'}`,
      );
    } catch (error) {
      lastError = error;
      await admin.disconnect().catch(() => {});
    }
    await sleep(500);
  }
  throw new Error(`describeCluster never succeeded: ${lastError?.message ?? 'timeout'}`);
}

async function roundTrip() {
  const topic = `tributary-ready-${randomUUID()}`;
  const groupId = `tributary-ready-${randomUUID()}`;
  const value = `ping-${Date.now()}`;
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500 });
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await producer.connect();
    await producer.send({ topic, messages: [{ value }] });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the consumer group received no message within the timeout')),
        Math.max(5000, deadline - Date.now()),
      );
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart) {
          clearTimeout(timer);
          reject(new Error(`consumer crashed: ${payload.error?.message}`));
        }
      });
      consumer
        .run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            resolve(message.value?.toString());
          },
        })
        .catch(reject);
    });
    if (received !== value) throw new Error(`consumed ${received}, expected ${value}`);
  } finally {
    await consumer.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.deleteGroups([groupId]).catch(() => {});
    await admin.disconnect().catch(() => {});
  }
}

try {
  const cluster = await describeUntilUp();
  // A cluster just formed may not have every partition's metadata on every broker yet: try again
  // until the deadline.
  for (;;) {
    try {
      await roundTrip();
      break;
    } catch (error) {
      if (brokerCount === 1 || Date.now() > deadline) throw error;
      await sleep(1000);
    }
  }
  console.log(
    `kafka ready: cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s) at ${brokers.join(',')}`,
  );
  process.exit(0);
} catch (error) {
  console.error(`kafka not ready at ${brokers.join(',')}: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
