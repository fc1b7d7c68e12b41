import { type DeadLetters, type GapGuard, createGroupConsumer } from '@tributary/bus';
import { type Logger, retryDelayMs } from '@tributary/runtime';
import type { Kafka } from 'kafkajs';
import type { Outage } from '../health/createOutage.ts';
import type { BatchOutcome, BlockProjector } from '../project/createBlockProjector.ts';
import { type Chunk, type ChunkFailedError, createChunkPipeline } from './createChunkPipeline.ts';
import { decodeChunk } from './decodeChunk.ts';
import { createFailureTriage } from './createFailureTriage.ts';

export interface BlockConsumer {
  start(): Promise<void>;
  /** Stops fetching, lets the in-flight transactions finish and commit, then leaves the group. */
  stop(): Promise<void>;
  isConnected(): boolean;
  /**
   * The partitions of the topic this member holds since the group's last rebalance (none: a
   * standby); undefined until it first joined.
   */
  assignedPartitions(): readonly number[] | undefined;
}

/**
 * Feeds `evm.blocks.v1` to the projector in transactions of at most `maxTransactionBytes` of
 * messages, pipelined across Kafka fetches (createChunkPipeline): offsets are committed only after
 * the transaction that projected them committed, in offset order; a failure sends the partition
 * back to its first offset not committed, so nothing is skipped, and is retried with backoff,
 * logged once per outage. Messages that do not decode go to the dead-letter topic.
 *
 * A consumer crash that kafkajs will not restart calls `onFatal`: the process must exit so that
 * its supervisor starts it afresh, never stay alive and idle.
 */
export function createBlockConsumer(deps: {
  kafka: Kafka;
  topic: string;
  groupId: string;
  projector: BlockProjector;
  deadLetters: DeadLetters;
  /** Checks that no message of the topic is missing, and has lost ones published again. */
  gapGuard?: GapGuard;
  logger: Logger;
  /** Where failures of the transactions and of the Kafka calls are reported (once per outage). */
  outages: { postgres: Outage; kafka: Outage };
  /** A chunk's offsets were committed (the watchdog's progress). */
  onCommitted?: () => void;
  /** kafkajs crashed and will not restart the consumer. */
  onFatal: (err: unknown) => void;
  /** Bytes one fetch reads of a partition (KAFKA_MAX_BYTES_PER_PARTITION). */
  maxBytesPerPartition: number;
  /** The group session's timeout: how soon a standby takes over from a member that died. */
  sessionTimeoutMs?: number;
  /** Message bytes projected in one transaction (a fetch is split into such chunks). */
  maxTransactionBytes: number;
  /** Upper bound of the wait between two attempts after a failure. */
  maxRetryDelayMs?: number;
  /** Tries of a failure of unknown cause before its block is set aside (default 5). */
  unknownAttempts?: number;
}): BlockConsumer {
  const { maxTransactionBytes } = deps;
  const { consumer, isConnected, setConnected } = createGroupConsumer(deps.kafka, {
    groupId: deps.groupId,
    maxBytesPerPartition: deps.maxBytesPerPartition,
    sessionTimeoutMs: deps.sessionTimeoutMs,
  });
  const { logger } = deps;

  function logChunk(chunk: Chunk, out: BatchOutcome | undefined, ms: number) {
    const { events } = chunk;
    logger.info(
      {
        partition: chunk.partition,
        events: events.length,
        fromBlock: events[0]?.block.number,
        toBlock: events[events.length - 1]?.block.number,
        offset: chunk.lastOffset,
        deadLetters: chunk.deadLetters.length || undefined,
        ms,
        ...out,
      },
      'projected batch',
    );
  }

  let attempts = 0;
  const triage = createFailureTriage({ unknownAttempts: deps.unknownAttempts });
  const pipeline = createChunkPipeline({
    projector: deps.projector,
    deadLetters: deps.deadLetters,
    commit: async (topic, partition, offset) => {
      await consumer.commitOffsets([{ topic, partition, offset }]);
    },
    seek: (topic, partition, offset) => {
      consumer.seek({ topic, partition, offset });
      deps.gapGuard?.sought(partition, offset);
    },
    onCommitted: (chunk, out, ms) => {
      attempts = 0;
      triage.committed(chunk.partition, (BigInt(chunk.lastOffset) + 1n).toString());
      for (const e of chunk.events) deps.gapGuard?.processed(e);
      deps.outages.postgres.recovered();
      deps.outages.kafka.recovered();
      for (const letter of chunk.deadLetters) {
        logger.error(
          { partition: letter.partition, offset: letter.offset, reason: letter.reason },
          'message set aside on the dead-letter topic',
        );
      }
      logChunk(chunk, out, ms);
      deps.onCommitted?.();
    },
    logger,
  });

  let stopping = false;
  let assigned: number[] | undefined;
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    assigned = payload.memberAssignment[deps.topic] ?? [];
    pipeline.reset();
    deps.gapGuard?.joined(payload.memberAssignment);
    // kafkajs emits no CONNECT when it restarts a crashed consumer: joining is being connected.
    setConnected(true);
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) {
      logger.warn({ err: payload.error }, 'kafka consumer crashed: kafkajs restarts it');
      return;
    }
    if (stopping) return;
    deps.onFatal(payload.error);
  });

  function report(failure: ChunkFailedError) {
    const outage = failure.stage === 'project' ? deps.outages.postgres : deps.outages.kafka;
    outage.failed(failure.cause ?? failure);
    logger.debug({ err: failure }, 'chunk failed: going back to the first uncommitted offset');
  }

  /** Waits `ms`, heartbeating (a rebalance throws out of it); returns early when stopping. */
  async function pause(ms: number, heartbeat: () => Promise<void>, isRunning: () => boolean) {
    const until = Date.now() + ms;
    let lastBeat = Date.now();
    while (Date.now() < until && isRunning() && !stopping) {
      await new Promise((r) => setTimeout(r, Math.min(200, until - Date.now())));
      if (Date.now() - lastBeat >= 3_000) {
        await heartbeat();
        lastBeat = Date.now();
      }
    }
  }

  return {
    isConnected,
    assignedPartitions: () => assigned,
    async start() {
      await consumer.connect();
      setConnected(true);
      await consumer.subscribe({ topic: deps.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          const { topic, partition } = batch;
          const proceed = () => isRunning() && !isStale() && !stopping && !pipeline.failed();
          // A rebalance (or the broker going away) throws out of heartbeat(): the chunks in flight
          // finish and commit first, then kafkajs joins again.
          const beat = async () => {
            try {
              await heartbeat();
            } catch (err) {
              await pipeline.settle();
              throw err;
            }
          };
          const failure = pipeline.failed() ? await pipeline.recover() : undefined;
          if (failure) {
            const verdict = triage.judge(failure);
            if (verdict.action === 'retry' && verdict.unknown) {
              const { failure: why, attempt, of } = verdict.unknown;
              logger.warn(
                {
                  partition: failure.chunk.partition,
                  offset: failure.chunk.firstOffset,
                  failure: why.why,
                  attempt,
                  of,
                },
                'projecting blocks failed, cause unknown: trying again',
              );
              await pause(retryDelayMs(attempts++, deps.maxRetryDelayMs), beat, isRunning);
            } else if (verdict.action === 'retry') {
              report(failure);
              await pause(retryDelayMs(attempts++, deps.maxRetryDelayMs), beat, isRunning);
            } else {
              const blocks = failure.chunk.events.map((e) => `${e.chainId}:${e.block.number}:${e.type}`);
              logger.error(
                {
                  partition: failure.chunk.partition,
                  firstOffset: failure.chunk.firstOffset,
                  lastOffset: failure.chunk.lastOffset,
                  blocks: blocks.slice(0, 20),
                  failure: verdict.failure.why,
                },
                verdict.action === 'isolate'
                  ? 'projecting blocks failed for good: projecting them one at a time to find the one that fails'
                  : 'projecting a block failed for good: it is set aside on the dead-letter topic (admin backfill re-publishes it once the cause is fixed)',
              );
            }
          }
          if (!proceed()) return;

          // A message missing from the partition (a broker that lost its log) is published again.
          for (const m of batch.messages) await deps.gapGuard?.read(partition, m.offset);
          const chunks = triage.split(partition, batch.messages, maxTransactionBytes);
          const decode = (messages: typeof batch.messages) =>
            decodeChunk(topic, partition, messages, triage.setAsideReason);
          // The next chunk is decoded while the one before is projected (decodeChunk never rejects).
          let decoding = chunks[0] ? decode(chunks[0]) : undefined;
          for (let i = 0; i < chunks.length && decoding; i++) {
            const chunk = await decoding;
            if (!proceed()) break;
            for (const e of chunk.events) await deps.gapGuard?.readEvent(e);
            const previousDone = pipeline.push(chunk);
            decoding = chunks[i + 1] ? decode(chunks[i + 1]!) : undefined;
            // At most two chunks in flight: this one, and the one before until it is done.
            await previousDone;
            if (pipeline.failed()) break;
            resolveOffset(chunk.lastOffset);
            await beat();
          }
          // Stopping, a seek or a failure: nothing may stay in flight (a failure is handled at
          // the next batch, from the offset it went back to). Otherwise the last chunk finishes
          // while kafkajs fetches the next batch.
          if (!proceed()) await pipeline.settle();
        },
      });
    },
    async stop() {
      stopping = true;
      await pipeline.settle();
      await consumer.stop();
      await pipeline.settle();
      await consumer.disconnect();
      setConnected(false);
    },
  };
}
