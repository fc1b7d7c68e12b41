import { Kafka, logLevel } from 'kafkajs';
import { getTestSettings, type TestSettings } from './testSettings.ts';

/**
 * Creates a topic and waits until every partition has a leader, so a test can produce at once.
 * Pair with uniqueName('topic') for isolation. Returns the name.
 */
export async function createKafkaTopic(
  name: string,
  partitions = 1,
  options: { configEntries?: Record<string, string>; settings?: TestSettings } = {},
): Promise<string> {
  const settings = options.settings ?? getTestSettings();
  const admin = new Kafka({
    clientId: 'tributary-testkit',
    brokers: settings.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const configEntries = Object.entries(options.configEntries ?? {}).map(([key, value]) => ({
      name: key,
      value,
    }));
    await admin.createTopics({
      topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1, configEntries }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
  return name;
}
