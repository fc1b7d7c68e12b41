import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import type { ConfigResourceTypes } from 'kafkajs';
import type { KafkaDisk } from './soakSample.ts';
import type { KafkaTopicRetention } from './summarizeSoak.ts';

/**
 * The broker's log dir as allocated on disk (what `du` says: Kafka's index files are sparse), by
 * topic: a partition's dir is `<topic>-<partition>`.
 */
export function readKafkaDisk(logDir: string): KafkaDisk {
  const topics: Record<string, number> = {};
  let logDirBytes = 0;
  for (const entry of readdirSync(logDir, { withFileTypes: true })) {
    const bytes = allocated(join(logDir, entry.name));
    logDirBytes += bytes;
    const topic = entry.isDirectory() ? /^(.+)-\d+$/.exec(entry.name)?.[1] : undefined;
    if (topic) topics[topic] = (topics[topic] ?? 0) + bytes;
  }
  return { logDirBytes, topics };
}

function allocated(path: string): number {
  try {
    const st = statSync(path);
    if (!st.isDirectory()) return st.blocks * 512;
    return readdirSync(path).reduce((sum, name) => sum + allocated(join(path, name)), 0);
  } catch {
    return 0; // a segment deleted while walking
  }
}

// kafkajs's enum is not among the names its CommonJS module exports to ESM.
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;

/** Each topic's retention as the broker applies it (its own setting, else the broker's default). */
export async function readKafkaRetention(
  brokers: string,
  topics: readonly string[],
): Promise<Record<string, KafkaTopicRetention>> {
  const admin = createKafka({
    clientId: 'soak',
    brokers: brokers.split(','),
    logger: createLogger('soak', 'silent'),
  }).admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: TOPIC_RESOURCE, name })),
    });
    const out: Record<string, KafkaTopicRetention> = {};
    for (const r of resources) {
      if (r.errorCode !== 0) continue;
      const get = (key: string) => r.configEntries.find((e) => e.configName === key)?.configValue;
      const retentionMs = Number(get('retention.ms') ?? -1);
      const policy = (get('cleanup.policy') ?? 'delete').split(',');
      out[r.resourceName] = {
        retentionHours: retentionMs < 0 ? null : retentionMs / 3_600_000,
        segmentBytes: Number(get('segment.bytes') ?? 2 ** 30),
        segmentHours: Number(get('segment.ms') ?? 7 * 24 * 3_600_000) / 3_600_000,
        compacted: policy.includes('compact') && !policy.includes('delete'),
      };
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}
