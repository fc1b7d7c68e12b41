import { randomUUID } from 'node:crypto';
import { createKafka } from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { TOPICS, blockEvent, streamChange } from '@tributary/schema';
import type { StreamStatus } from '@tributary/stream-rules';
import { WEBHOOK_QUEUE } from '@tributary/webhooks';
import { Queue } from 'bullmq';
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { createStreamStore } from '../load/createStreamStore.ts';
import { createBlockHandler } from '../match/handleBlockEvent.ts';
import type { BlockReaders } from '../read/createBlockReaders.ts';

export interface MatcherOptions {
  pool: Pool;
  logger: Logger;
  kafka: { brokers: string[]; clientId: string; topicPrefix: string; groupId: string };
  redisUrl: string;
  queuePrefix: string;
  /** Contract reads and balances for triggers and getNativeBalances. */
  readers: BlockReaders;
  /** Called once the streams are loaded and before the change consumer runs (tests widen the window with it). */
  afterStreamsLoaded?: () => Promise<void>;
}

export interface Matcher {
  start(): Promise<void>;
  /** Stops consuming (offsets of finished messages are committed by kafkajs). */
  stopIntake(): Promise<void>;
  close(): Promise<void>;
  ready(): boolean;
  /** The status under which this instance evaluates a stream (undefined: not evaluated). */
  streamStatus(streamId: string): StreamStatus | undefined;
}

/**
 * Two consumers: `streams.changes.v1` with a group id unique to this instance (every instance
 * sees every change), and `evm.blocks.v1` in the shared group (instances split the partitions).
 * Start-up: read the change topic's end offsets, then load the streams from PostgreSQL, then run
 * the change consumer from exactly those offsets. A change published after the offsets were read
 * is consumed (the gateway writes PostgreSQL before it publishes, so one published before is in
 * the load): none falls between the load and the consumer's start.
 */
export function createMatcher(opts: MatcherOptions): Matcher {
  const { logger } = opts;
  const kafka = createKafka({ brokers: opts.kafka.brokers, clientId: opts.kafka.clientId, logger });
  const changesTopic = `${opts.kafka.topicPrefix}${TOPICS.streamChanges}`;
  const blocksTopic = `${opts.kafka.topicPrefix}${TOPICS.blocks}`;
  const queue = new Queue(WEBHOOK_QUEUE, {
    connection: { url: opts.redisUrl, maxRetriesPerRequest: null },
    prefix: opts.queuePrefix,
  });
  const store = createStreamStore({ pool: opts.pool, logger });
  const handleBlock = createBlockHandler({ pool: opts.pool, store, queue, logger, readers: opts.readers });
  const changesGroupId = `${opts.kafka.groupId}-changes-${randomUUID()}`;
  const changes: Consumer = kafka.consumer({
    groupId: changesGroupId,
    maxWaitTimeInMs: 200,
  });
  const blocks: Consumer = kafka.consumer({ groupId: opts.kafka.groupId, maxWaitTimeInMs: 500 });
  let isReady = false;

  return {
    async start() {
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.createTopics({
          topics: [{ topic: changesTopic }, { topic: blocksTopic }],
          waitForLeaders: true,
        });
      } finally {
        await admin.disconnect();
      }
      const startOffsets = await fetchEndOffsets(kafka, changesTopic);
      await store.loadAll();
      await opts.afterStreamsLoaded?.();

      await changes.connect();
      await changes.subscribe({ topic: changesTopic, fromBeginning: false });
      await changes.run({
        eachMessage: async ({ message }) => {
          const parsed = streamChange.safeParse(JSON.parse(String(message.value)));
          if (!parsed.success) {
            logger.warn({ offset: message.offset }, 'invalid stream change skipped');
            return;
          }
          await store.reload(parsed.data.streamId);
          logger.debug({ streamId: parsed.data.streamId, kind: parsed.data.kind }, 'stream reloaded');
        },
      });
      // Applied before the first fetch of each partition (a fetch already under way is discarded).
      for (const { partition, offset } of startOffsets) {
        changes.seek({ topic: changesTopic, partition, offset });
      }

      await blocks.connect();
      await blocks.subscribe({ topic: blocksTopic, fromBeginning: true });
      await blocks.run({
        eachMessage: async ({ message, partition }) => {
          const parsed = blockEvent.safeParse(JSON.parse(String(message.value)));
          if (!parsed.success) {
            logger.error(
              { partition, offset: message.offset, issues: parsed.error.issues.slice(0, 3) },
              'invalid block event skipped',
            );
            return;
          }
          const event = parsed.data;
          const enqueued = await handleBlock(event);
          logger.debug(
            {
              chainId: event.chainId,
              block: event.block.number,
              hash: event.block.hash,
              type: event.type,
              enqueued,
            },
            'block evaluated',
          );
        },
      });
      isReady = true;
    },
    async stopIntake() {
      isReady = false;
      await Promise.allSettled([blocks.stop(), changes.stop()]);
    },
    async close() {
      await Promise.allSettled([blocks.disconnect(), changes.disconnect()]);
      // The per-instance changes group is useless after this instance stops.
      const admin = kafka.admin();
      await admin
        .connect()
        .then(() => admin.deleteGroups([changesGroupId]))
        .catch(() => undefined)
        .finally(() => admin.disconnect());
      await queue.close();
    },
    ready: () => isReady,
    streamStatus: (streamId) => store.get(streamId)?.status,
  };
}

async function fetchEndOffsets(
  kafka: Kafka,
  topic: string,
): Promise<{ partition: number; offset: string }[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, offset: p.high }));
  } finally {
    await admin.disconnect();
  }
}
