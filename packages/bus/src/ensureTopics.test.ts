import { getTestSettings, uniqueName } from '@tributary/testkit';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTopics } from './ensureTopics.ts';

const settings = getTestSettings();
const kafka = new Kafka({ clientId: 'bus-test', brokers: settings.kafkaBrokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
afterAll(() => admin.disconnect());

async function settingsOf(topic: string) {
  await admin.connect();
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  const config = new Map(resources[0]?.configEntries.map((e) => [e.configName, e.configValue]));
  return {
    partitions: topics[0]?.partitions.length,
    replicas: topics[0]?.partitions[0]?.replicas.length,
    minInsync: config.get('min.insync.replicas'),
    maxMessageBytes: config.get('max.message.bytes'),
  };
}

describe('ensureTopics', () => {
  it('creates a missing topic with its partitions, copies, in-sync copies and message size', async () => {
    const topic = uniqueName('ensure');
    expect(
      await ensureTopics(kafka, [{ topic, numPartitions: 2 }], { replication: { factor: 1, minInsync: 1 } }),
    ).toEqual([topic]);
    expect(await settingsOf(topic)).toEqual({
      partitions: 2,
      replicas: 1,
      minInsync: '1',
      maxMessageBytes: String(64 * 1024 * 1024),
    });
  });

  it('leaves an existing topic as it is, and says when it has fewer copies than asked', async () => {
    const topic = uniqueName('ensure-old');
    await ensureTopics(kafka, [{ topic }]);
    const warnings: object[] = [];
    const logger = { warn: (obj: object) => warnings.push(obj) };
    // A deployment moved to three brokers: its topics made with one copy stay so, and are named.
    expect(
      await ensureTopics(kafka, [{ topic }], { replication: { factor: 3, minInsync: 2 }, logger }),
    ).toEqual([]);
    expect(warnings).toEqual([{ topic, replicas: 1, replicationFactor: 3 }]);
    expect((await settingsOf(topic)).replicas).toBe(1);
  });
});
