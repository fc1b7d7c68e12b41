import { randomUUID } from 'node:crypto';
import {
  type DeadLetter,
  type Gap,
  type TopicReplication,
  blockEventCodec,
  createDeadLetters,
  createGapGuard,
  createLagProbe,
  ensureTopics,
  groupSession,
  jsonCodec,
  topicsFor,
} from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { createGapRepairStore } from '@tributary/db/chain';
import {
  type OutageLog,
  PermanentFailure,
  createOutageLog,
  createProgressWatchdog,
  retryUntilDone,
} from '@tributary/runtime';
import { type BlockEvent, type StreamStatus, streamChange } from '@tributary/schema';
import type { Queue } from 'bullmq';
import type { Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { BlockContentsUnavailableError } from '../complete/createBlockCompleter.ts';
import { createStreamStore } from '../load/createStreamStore.ts';
import { createBlockHandler } from '../match/handleBlockEvent.ts';
import type { MatcherMetrics } from '../metrics/createMatcherMetrics.ts';
import type { BlockReaders } from '../read/createBlockReaders.ts';

export interface MatcherOptions {
  pool: Pool;
  logger: Logger;
  /** Built by main.ts: the Kafka client, its dead-letter producer (`plain`) and the webhook queue (`failsFast`). */
  clients: {
    kafka: Kafka;
    /** Where kafkajs' connection failures go (kafkaClientLogger): ended by the next block evaluated. */
    kafkaOutage: OutageLog;
    producer: Producer;
    /**
     * The enqueue is the fast path only (the rows are the outbox): a queue with no offline queue
     * fails at once while Redis is away, instead of holding the block until Redis is back.
     */
    queue: Queue;
  };
  kafka: {
    topicPrefix: string;
    groupId: string;
    /** The group session's timeout: how soon a standby takes over from a member that died. */
    sessionTimeoutMs?: number;
    /** retention.ms of the topics it makes or finds (KAFKA_*_RETENTION_HOURS); unset: left as they are. */
    retentionMs?: { blocks: number; changes: number; deadLetters: number };
    /** How the topics it creates are replicated (default: a single broker's 1 and 1). */
    replication?: TopicReplication;
  };
  /** Contract reads and balances for triggers and getNativeBalances. */
  readers: BlockReaders;
  /** Called once the streams are loaded and before the change consumer runs (tests widen the window with it). */
  afterStreamsLoaded?: () => Promise<void>;
  /** Work waiting and no block evaluated for this long: not ready; for `exitAfterMs`: onFatal. */
  watchdog: { stallMs: number; exitAfterMs: number };
  /** The matcher cannot go on (a consumer kafkajs will not restart, a stall): exit for a restart. */
  onFatal?: (reason: string, err?: unknown) => void;
  /** How often the streams are compared with PostgreSQL, for a change event that never came (0: never). */
  reconcileMs: number;
  /** A poison message went to the dead-letter topic (for the metrics). */
  onDeadLetter?: (letter: DeadLetter) => void;
  /** Time per block, matches and deliveries created. */
  metrics?: MatcherMetrics;
  /** A gap found in the block topic (the broker lost messages): counted; the blocks are published again. */
  onGap?: (gap: Gap) => void;
  /** Time one stream may take to evaluate one block; over it, it is no longer evaluated. */
  budgetMs: number;
}

export interface Matcher {
  /** `untilUp` repeats a start-up step that needs Kafka or PostgreSQL until it succeeds. */
  start(untilUp?: <T>(what: string, step: () => Promise<T>) => Promise<T>): Promise<void>;
  /** Stops consuming (offsets of finished messages are committed by kafkajs). */
  stopIntake(): Promise<void>;
  /** Disconnects its consumers and the producer (main.ts closes the queue, which the backfiller shares). */
  close(): Promise<void>;
  /** Throws with what is missing while the matcher is not ready. */
  checkReady(): void;
  ready(): boolean;
  /** The status under which this instance evaluates a stream (undefined: not evaluated). */
  streamStatus(streamId: string): StreamStatus | undefined;
  /** The streams this instance evaluates, by status. */
  streamCounts(): Map<StreamStatus, number>;
  /** The block consumer group's messages not yet committed (asks the broker). */
  lag(): Promise<number>;
  /** Readiness: throws naming the gaps in the block topic whose blocks are being published again. */
  checkGaps(): Promise<void>;
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
  const { kafka, kafkaOutage, producer, queue } = opts.clients;
  const {
    streamChanges: changesTopic,
    blocks: blocksTopic,
    deadLetters: deadLetterTopic,
  } = topicsFor(opts.kafka.topicPrefix);
  const redisOutage = createOutageLog(logger, 'redis (fast-path enqueue; the relay delivers meanwhile)');
  queue.on('error', (err) => redisOutage.failed(err));
  const store = createStreamStore({ pool: opts.pool, logger });
  const handleBlock = createBlockHandler({
    pool: opts.pool,
    store,
    queue,
    logger,
    readers: opts.readers,
    ...(opts.metrics
      ? { onCompletion: opts.metrics.blockCompleted, onSuspended: opts.metrics.streamSuspended }
      : {}),
    budgetMs: opts.budgetMs,
    onEnqueue: (err) => (err === undefined ? redisOutage.ok() : redisOutage.failed(err)),
    ...(opts.metrics ? { onStored: opts.metrics.stored } : {}),
  });
  const stopping = new AbortController();
  const blockOutage = createOutageLog(logger, 'block evaluation');
  const changeOutage = createOutageLog(logger, 'stream reload (PostgreSQL)');
  const deadLetters = createDeadLetters({
    producer,
    topicPrefix: opts.kafka.topicPrefix,
    consumer: opts.kafka.groupId,
    onDeadLetter: opts.onDeadLetter,
  });
  const changeCodec = jsonCodec(streamChange);
  const reconcileOutage = createOutageLog(logger, 'stream reconcile (PostgreSQL)');
  let reconcileTimer: NodeJS.Timeout | undefined;
  const fatal = (reason: string, err?: unknown) => {
    isReady = false;
    logger.fatal({ err }, reason);
    opts.onFatal?.(reason, err);
  };
  const lagProbe = createLagProbe(kafka, { groupId: opts.kafka.groupId, topic: blocksTopic });
  // A broker that lost its log (recreated without its volume, retention shorter than an outage)
  // never makes the matcher skip blocks: the follower publishes the missing ones again.
  const gapAdmin = kafka.admin();
  const gapGuard = createGapGuard({
    admin: gapAdmin,
    topic: blocksTopic,
    groupId: opts.kafka.groupId,
    ...createGapRepairStore(opts.pool, opts.kafka.groupId),
    logger,
    ...(opts.onGap ? { onGap: opts.onGap } : {}),
  });
  // The partitions of the block topic this member holds (none: a standby); undefined until it joined.
  let assigned: number[] | undefined;
  const watchdog = createProgressWatchdog({
    name: 'block consumer',
    logger,
    stallMs: opts.watchdog.stallMs,
    exitAfterMs: opts.watchdog.exitAfterMs,
    // Its own partitions' lag: a standby holds none, and is never stalled by the work of the active member.
    backlog: () => lagProbe.lag(assigned),
    onStalled: (reason) => fatal(`stalled: ${reason}`),
  });

  /** A message that can never be processed: to the dead-letter topic, then past it. */
  async function deadLetter(
    topic: string,
    partition: number,
    message: KafkaMessage,
    err: unknown,
    what: Record<string, unknown> = {},
  ) {
    const reason = err instanceof Error ? err.message : String(err);
    await deadLetters.send({
      topic,
      partition,
      offset: message.offset,
      key: message.key,
      value: message.value,
      reason,
    });
    logger.error(
      { topic, partition, offset: message.offset, reason, ...what },
      err instanceof PermanentFailure
        ? 'message failed for good: set aside on the dead-letter topic'
        : 'poison message sent to the dead-letter topic',
    );
  }
  /** Tries of a failure of unknown cause (classifyFailure), said once each. */
  const onUnknown = (what: string) => (failure: { why: string }, attempt: number) =>
    logger.warn({ failure: failure.why, attempt }, `${what} failed, cause unknown: trying again`);
  const changesGroupId = `${opts.kafka.groupId}-changes-${randomUUID()}`;
  const changes: Consumer = kafka.consumer({
    groupId: changesGroupId,
    maxWaitTimeInMs: 200,
  });
  const blocks: Consumer = kafka.consumer({
    groupId: opts.kafka.groupId,
    maxWaitTimeInMs: 500,
    ...groupSession(opts.kafka.sessionTimeoutMs),
  });
  let isReady = false;

  // Every block of a fetched batch was published before the fetch; kafkajs starts processing a
  // batch after fetching it. So one check of PostgreSQL's stream set per batch, made before its
  // first block, sees every change committed before any block of the batch was published: at the
  // head that is a check per block, while catching up one per few hundred blocks.
  let checkDue = true;
  blocks.on(blocks.events.GROUP_JOIN, ({ payload }) => {
    assigned = payload.memberAssignment[blocksTopic] ?? [];
    gapGuard.joined(payload.memberAssignment);
  });
  blocks.on(blocks.events.START_BATCH_PROCESS, () => {
    checkDue = true;
  });

  // A block waiting for a part that the node cannot give yet (readiness and metrics say so).
  let waitingForNode: { reason: string; since: number } | undefined;
  opts.metrics?.contentsWait(() => (waitingForNode ? (Date.now() - waitingForNode.since) / 1000 : 0));

  /**
   * A block is evaluated against every stream change committed before it was published, including
   * changes whose event has not come (late, or never sent while Kafka was away).
   */
  async function evaluate(event: BlockEvent): Promise<number> {
    try {
      const enqueued = await evaluateAfterCatchUp(event);
      waitingForNode = undefined;
      return enqueued;
    } catch (err) {
      if (err instanceof BlockContentsUnavailableError) {
        waitingForNode = { reason: err.message, since: waitingForNode?.since ?? Date.now() };
      }
      throw err;
    }
  }

  async function evaluateAfterCatchUp(event: BlockEvent): Promise<number> {
    if (checkDue) {
      // Cleared first: a batch that starts meanwhile makes it due again.
      checkDue = false;
      let caughtUp: string[];
      try {
        caughtUp = await store.catchUp();
      } catch (err) {
        checkDue = true; // for the retry
        throw err;
      }
      if (caughtUp.length > 0) {
        opts.metrics?.streamsReloaded('before-block', caughtUp.length);
        logger.debug(
          { chainId: event.chainId, block: event.block.number, streams: caughtUp },
          'streams changed before their change event came: reloaded before the block',
        );
      }
    }
    return handleBlock(event);
  }

  return {
    async start(untilUp = <T>(_what: string, step: () => Promise<T>) => step()) {
      await untilUp('kafka (topics)', async () => {
        const retention = opts.kafka.retentionMs;
        await ensureTopics(
          kafka,
          [
            { topic: changesTopic, ...(retention ? { retentionMs: retention.changes } : {}) },
            { topic: blocksTopic, ...(retention ? { retentionMs: retention.blocks } : {}) },
            { topic: deadLetterTopic, ...(retention ? { retentionMs: retention.deadLetters } : {}) },
          ],
          {
            ...(opts.kafka.replication ? { replication: opts.kafka.replication } : {}),
            logger,
          },
        );
      });
      const startOffsets = await untilUp('kafka (offsets)', () => fetchEndOffsets(kafka, changesTopic));
      await untilUp('postgres (streams)', () => store.loadAll());
      await opts.afterStreamsLoaded?.();

      await untilUp('kafka (producer)', () => producer.connect());
      for (const consumer of [changes, blocks]) {
        consumer.on(consumer.events.CRASH, ({ payload }) => {
          if (!payload.restart) fatal('a Kafka consumer crashed and will not restart', payload.error);
        });
      }
      await untilUp('kafka (change consumer)', () => changes.connect());
      await changes.subscribe({ topic: changesTopic, fromBeginning: false });
      await changes.run({
        eachMessage: async ({ message, partition, heartbeat }) => {
          let change: ReturnType<typeof changeCodec.decode>;
          try {
            change = changeCodec.decode(message.value);
          } catch (err) {
            await deadLetter(changesTopic, partition, message, err);
            return;
          }
          try {
            await retryUntilDone(() => store.reload(change.streamId), {
              outage: changeOutage,
              signal: stopping.signal,
              onWait: heartbeat,
              onUnknown: onUnknown('stream reload'),
            });
          } catch (err) {
            if (!(err instanceof PermanentFailure)) throw err;
            await deadLetter(changesTopic, partition, message, err, { streamId: change.streamId });
            return;
          }
          opts.metrics?.streamsReloaded('change-event', 1);
          logger.debug({ streamId: change.streamId, kind: change.kind }, 'stream reloaded');
        },
      });
      // Applied before the first fetch of each partition (a fetch already under way is discarded).
      for (const { partition, offset } of startOffsets) {
        changes.seek({ topic: changesTopic, partition, offset });
      }

      await untilUp('kafka (gap guard)', () => gapAdmin.connect());
      await untilUp('kafka (block consumer)', () => blocks.connect());
      await blocks.subscribe({ topic: blocksTopic, fromBeginning: true });
      await blocks.run({
        // The offset of a block is committed only after eachMessage resolved: after its delivery
        // rows are committed. A failure (PostgreSQL away) is retried here, with backoff and a
        // heartbeat, until it succeeds or the matcher stops: a block is never skipped.
        eachMessage: async ({ message, partition, heartbeat }) => {
          // A message missing from the partition (a broker that lost its log) is published again.
          await gapGuard.read(partition, message.offset);
          let event: BlockEvent;
          try {
            event = blockEventCodec.decode(message.value);
          } catch (err) {
            await deadLetter(blocksTopic, partition, message, err);
            watchdog.progress();
            return;
          }
          await gapGuard.readEvent(event);
          const startedAt = performance.now();
          let enqueued: number;
          try {
            enqueued = await retryUntilDone(() => evaluate(event), {
              outage: blockOutage,
              signal: stopping.signal,
              onWait: heartbeat,
              onUnknown: onUnknown('block evaluation'),
            });
          } catch (err) {
            if (!(err instanceof PermanentFailure)) throw err;
            // Retrying cannot help: the block's webhooks are set aside with the reason, said in the
            // log, the metrics and readiness; `admin backfill` re-publishes it once the cause is fixed.
            await deadLetter(blocksTopic, partition, message, err, {
              chainId: event.chainId,
              block: event.block.number,
              hash: event.block.hash,
              type: event.type,
            });
            watchdog.progress();
            return;
          }
          opts.metrics?.blockEvaluated(event.type, (performance.now() - startedAt) / 1000);
          gapGuard.processed(event);
          watchdog.progress();
          kafkaOutage.ok();
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
      const everyMs = opts.reconcileMs;
      if (everyMs > 0) {
        reconcileTimer = setInterval(() => {
          store.reconcile().then(
            (changed) => {
              reconcileOutage.ok();
              opts.metrics?.streamsReloaded('reconcile', changed.length);
              if (changed.length > 0)
                logger.warn({ streams: changed }, 'streams changed without a change event: reloaded');
            },
            (err: unknown) => reconcileOutage.failed(err),
          );
        }, everyMs);
        reconcileTimer.unref();
      }
    },
    async stopIntake() {
      isReady = false;
      stopping.abort();
      watchdog.stop();
      clearInterval(reconcileTimer);
      await Promise.allSettled([blocks.stop(), changes.stop()]);
      await gapGuard.stop(); // the positions of the blocks evaluated, while PostgreSQL is still open
    },
    async close() {
      await Promise.allSettled([
        blocks.disconnect(),
        changes.disconnect(),
        producer.disconnect(),
        lagProbe.close(),
        gapAdmin.disconnect(),
      ]);
      // The per-instance changes group is useless after this instance stops.
      const admin = kafka.admin();
      await admin
        .connect()
        .then(() => admin.deleteGroups([changesGroupId]))
        .catch(() => undefined)
        .finally(() => admin.disconnect());
    },
    ready: () => isReady,
    checkReady() {
      if (!isReady) throw new Error('not consuming');
      const waiting = waitingForNode;
      if (waiting && Date.now() - waiting.since > 5_000) {
        const seconds = Math.round((Date.now() - waiting.since) / 1000);
        throw new Error(`a block has waited ${seconds} s for what its streams read: ${waiting.reason}`);
      }
      watchdog.check();
    },
    streamStatus: (streamId) => store.get(streamId)?.status,
    streamCounts: () => store.countByStatus(),
    lag: () => lagProbe.lag(),
    checkGaps: () => gapGuard.check(),
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
