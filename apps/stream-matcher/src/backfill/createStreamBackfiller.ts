import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Pool, withTransaction } from '@tributary/db';
import { storedBlockBounds } from '@tributary/db/chain';
import {
  type ClaimedStreamBackfill,
  type NewDelivery,
  claimStreamBackfill,
  commitStreamBackfillChunk,
  countBackfillPending,
  deliveryKey,
  failStreamBackfill,
  insertDeliveries,
  readStreamBackfillSnapshot,
  releaseStreamBackfill,
  setStreamBackfillWaiting,
} from '@tributary/db/streams';
import { contentsOf, isEmptyContents, missingContents } from '@tributary/schema';
import { type CompiledStream, StreamIndex, compileStream, enrichMatch } from '@tributary/stream-rules';
import type { StreamConfig } from '@tributary/schema';
import {
  BACKFILL_JOB_PRIORITY,
  assignDeliveryJobs,
  enqueueCommitted,
  jobIdFor,
  serializeWebhook,
} from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { BlockCompleter } from '../complete/createBlockCompleter.ts';
import type { TokenCache } from '../match/createTokenCache.ts';
import type { BlockReaders } from '../read/createBlockReaders.ts';
import type { BackfillBlockSource, BlockSource } from './createBackfillBlockSource.ts';

export interface StreamBackfillerOptions {
  pool: Pool;
  queue: Queue;
  readers: BlockReaders;
  blocks: BackfillBlockSource;
  completer: BlockCompleter;
  tokens: TokenCache;
  logger: Logger;
  /** Blocks evaluated per transaction (and per turn: backfills take turns a chunk at a time). */
  chunkBlocks: number;
  /** Blocks a second this instance evaluates for backfills that send, and for dry runs. */
  blocksPerSecond: number;
  dryRunBlocksPerSecond: number;
  /** A backfill with this many webhooks not yet delivered waits before it stores more. */
  maxPending: number;
  /** How often an idle worker looks for a backfill, and how long one that waits is left. */
  pollMs: number;
  /** How long a taken backfill is this instance's; past it (a crash) another instance goes on with it. */
  leaseMs: number;
  /** Told about each chunk evaluated (for the metrics). */
  onChunk?: (c: { blocks: Record<BlockSource, number>; webhooks: number; dryRun: boolean }) => void;
}

export interface StreamBackfiller {
  start(): void;
  /** Finishes the chunk in hand (its transaction commits or rolls back) and hands the backfill back. */
  stop(): Promise<void>;
}

/** Why a backfill does not move now: said on its row (GET .../backfill/{id}, `status`), and it waits its next turn. */
class Waiting extends Error {}

/**
 * Works through the per-stream backfills (POST /streams/evm/{id}/backfill), a chunk at a time,
 * taking turns between them. Each chunk's blocks are read from the query tables, or from the node
 * where the tables lack them, completed from the node with what the stream reads beyond logs,
 * evaluated with the stream's config as it was when the backfill was asked for, and their
 * confirmed webhooks stored (marked with the backfill's id) in the same transaction that moves
 * the backfill's progress: a crash anywhere repeats at most the chunk, which stores nothing twice.
 * The webhooks are enqueued at a priority below every live one, and a backfill whose webhooks
 * wait for delivery past `maxPending` stores no more until they drain.
 */
export function createStreamBackfiller(opts: StreamBackfillerOptions): StreamBackfiller {
  const owner = `matcher-${randomUUID()}`;
  const { logger } = opts;
  let stopped = false;
  let loop: Promise<void> | undefined;
  const wake = new AbortController();
  // The compiled snapshots of the last few backfills taken (they take turns): read and compiled
  // once, not per chunk (a stream may watch a million addresses).
  const compiled = new Map<string, CompiledStream>();
  const CACHED = 8;

  async function compiledOf(b: ClaimedStreamBackfill): Promise<CompiledStream> {
    let stream = compiled.get(b.id);
    if (stream) {
      compiled.delete(b.id); // to the end: the most recently used
      compiled.set(b.id, stream);
      return stream;
    }
    const snapshot = await readStreamBackfillSnapshot(opts.pool, b.id);
    if (!snapshot) throw new Waiting('the backfill is gone');
    stream = compileStream({
      id: b.streamId,
      accountId: b.accountId,
      status: 'active',
      startBlocks: {},
      config: snapshot.config as StreamConfig,
      addresses: snapshot.addresses,
    });
    compiled.set(b.id, stream);
    for (const key of compiled.keys()) {
      if (compiled.size <= CACHED) break;
      compiled.delete(key);
    }
    return stream;
  }

  /** One chunk of `b`; false when it had to wait. */
  async function step(b: ClaimedStreamBackfill): Promise<boolean> {
    if (b.streamStatus === 'terminated') {
      await failStreamBackfill(opts.pool, b.id, owner, 'the stream was terminated');
      return true;
    }
    if (b.streamStatus === 'paused') throw new Waiting('the stream is paused');
    if (!b.dryRun) {
      const pending = await countBackfillPending(opts.pool, b.id);
      if (pending >= opts.maxPending)
        throw new Waiting(
          `${pending} of its webhooks wait for delivery (at most ${opts.maxPending} at once)`,
        );
    }
    const bounds = await storedBlockBounds(opts.pool, b.chainId);
    if (!bounds) throw new Waiting(`the query tables hold no block of chain ${b.chainId} yet`);
    // Blocks below the tables' lowest are history older than anything followed: final.
    const finalUpTo = bounds.highestConfirmed ?? bounds.lowest - 1;
    if (b.nextBlock > finalUpTo) throw new Waiting(`block ${b.nextBlock} is not final yet`);
    const from = b.nextBlock;
    const to = Math.min(b.toBlock, finalUpTo, from + opts.chunkBlocks - 1);
    const started = performance.now();

    const stream = await compiledOf(b);
    const index = new StreamIndex();
    index.upsert(stream);
    const read = await opts.blocks.read(b.chainId, from, to);
    const counts: Record<BlockSource, number> = { tables: 0, node: 0 };
    const rows: NewDelivery[] = [];
    for (const { event: received, source } of read) {
      counts[source]++;
      let event = received;
      const missing = missingContents(contentsOf(event), stream.reads);
      if (!isEmptyContents(missing)) {
        const completion = await opts.completer.complete(event, missing);
        // A final block the node says another block replaced: the node and the tables disagree.
        if (completion.outcome === 'orphaned')
          throw new Waiting(
            `the node holds ${completion.canonicalHash} at block ${event.block.number}, not ${event.block.hash}`,
          );
        event = completion.event;
      }
      await opts.tokens.prefetch(event.chainId, new Set(event.logs.map((l) => l.address)));
      const found = index.match(event, (a) => opts.tokens.get(event.chainId, a));
      for (const { match } of found) {
        if (stream.triggers.length > 0 || (stream.config.getNativeBalances ?? []).length > 0)
          await enrichMatch(stream, match.body, opts.readers.forBlock(event.chainId, event.block));
        rows.push({
          id: randomUUID(),
          streamId: b.streamId,
          chainId: b.chainId,
          blockNumber: event.block.number,
          blockHash: event.block.hash,
          blockTimestamp: event.block.timestamp,
          confirmed: true,
          body: serializeWebhook({ ...match.body, confirmed: true, backfillId: b.id }),
          status: b.streamStatus === 'error' ? 'held' : 'pending',
          logsCount: match.logsCount,
          txsCount: match.txsCount,
          backfillId: b.id,
        });
      }
    }
    const jobIds = assignDeliveryJobs(
      rows.map((r) =>
        jobIdFor({
          for: 'backfill',
          backfillId: b.id,
          streamId: b.streamId,
          chainId: b.chainId,
          blockHash: r.blockHash,
        }),
      ),
    );
    rows.forEach((r, i) => {
      r.jobId = jobIds[i] as string;
    });

    const jobs: { deliveryId: string; jobId: string }[] = [];
    const committed = await withTransaction(opts.pool, async (client) => {
      if (!b.dryRun) {
        // One block's row at a time: insertDeliveries answers per stream and kind of one block.
        for (const row of rows) {
          const stored = await insertDeliveries(client, [row]);
          const delivery = stored.get(deliveryKey(row.streamId, true));
          if (delivery?.status === 'pending')
            jobs.push({ deliveryId: delivery.id, jobId: delivery.jobId ?? (row.jobId as string) });
        }
      }
      const moved = await commitStreamBackfillChunk(client, {
        id: b.id,
        owner,
        nextBlock: to + 1,
        fromTables: counts.tables,
        fromNode: counts.node,
        matchedBlocks: rows.length,
        webhooks: rows.length,
      });
      // Cancelled meanwhile, or taken over after this instance's lease ran out: nothing of the chunk stays.
      if (!moved) throw new ChunkRefused();
      return true;
    }).catch((err: unknown) => {
      if (err instanceof ChunkRefused) return false;
      throw err;
    });
    if (!committed) {
      logger.info(
        { backfill: b.id, from, to },
        'backfill chunk not kept: the backfill was cancelled or taken over',
      );
      return true;
    }
    // The fast path; the sender's relay enqueues whatever this misses (at the backfill's priority).
    const { error } = await enqueueCommitted(opts.queue, jobs, { priority: BACKFILL_JOB_PRIORITY });
    if (error !== undefined)
      logger.warn({ err: error, backfill: b.id }, 'backfill webhooks not enqueued: the relay will');
    opts.onChunk?.({ blocks: counts, webhooks: rows.length, dryRun: b.dryRun });
    logger.info(
      {
        backfill: b.id,
        streamId: b.streamId,
        chainId: b.chainId,
        from,
        to,
        fromTables: counts.tables,
        fromNode: counts.node,
        webhooks: rows.length,
        dryRun: b.dryRun,
        done: to >= b.toBlock,
      },
      'backfill chunk evaluated',
    );
    // The rate: this chunk's share of a second.
    const rate = b.dryRun ? opts.dryRunBlocksPerSecond : opts.blocksPerSecond;
    const owed = ((to - from + 1) * 1000) / rate - (performance.now() - started);
    if (owed > 0) await pause(owed);
    if (to >= b.toBlock) compiled.delete(b.id);
    return true;
  }

  const pause = (ms: number) => sleep(ms, undefined, { signal: wake.signal }).catch(() => undefined);

  async function turn(): Promise<boolean> {
    const b = await claimStreamBackfill(opts.pool, owner, opts.leaseMs);
    if (!b) return false;
    try {
      return await step(b);
    } catch (err) {
      const reason = err instanceof Waiting ? err.message : `${(err as Error).message}; tried again`;
      if (!(err instanceof Waiting)) logger.warn({ err, backfill: b.id }, 'backfill chunk failed');
      await setStreamBackfillWaiting(opts.pool, b.id, owner, reason).catch(() => undefined);
      return false;
    } finally {
      await releaseStreamBackfill(opts.pool, b.id, owner).catch(() => undefined);
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      let moved = false;
      try {
        moved = await turn();
      } catch (err) {
        logger.warn({ err }, 'backfill worker: PostgreSQL away; trying again');
      }
      if (!moved && !stopped) await pause(opts.pollMs);
    }
  }

  return {
    start() {
      loop ??= run();
    },
    async stop() {
      stopped = true;
      wake.abort();
      await loop;
    },
  };
}

class ChunkRefused extends Error {}
