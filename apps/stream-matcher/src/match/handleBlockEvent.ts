import { randomUUID } from 'node:crypto';
import type { Pool } from '@tributary/db';
import {
  type NewDelivery,
  type StoredDelivery,
  assignSequence,
  deliveryKey,
  findUnconfirmedDeliveries,
  insertDeliveries,
  insertDelivery,
  suspendStreamEvaluation,
} from '@tributary/db/streams';
import {
  type BlockEvent,
  type FullBlockEvent,
  contentsOf,
  coversContents,
  describeContents,
  isEmptyContents,
  missingContents,
} from '@tributary/schema';
import { type CompiledStream, enrichMatch, isAfterStreamStart } from '@tributary/stream-rules';
import {
  assignDeliveryJobs,
  enqueueCommitted,
  jobIdFor,
  removalNoticeBody,
  serializeWebhook,
} from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { type Completion, createBlockCompleter } from '../complete/createBlockCompleter.ts';
import type { StreamStore } from '../load/createStreamStore.ts';
import { createTokenCache } from './createTokenCache.ts';
import type { BlockReaders } from '../read/createBlockReaders.ts';

export interface BlockHandlerDeps {
  pool: Pool;
  store: StreamStore;
  queue: Queue;
  logger: Logger;
  /** Contract reads for triggers and balances, and the node a block's missing parts are read from. */
  readers: BlockReaders;
  /** A block was completed from the node, or found orphaned while it was (for the metrics). */
  onCompletion?: (outcome: Completion['outcome']) => void;
  /**
   * Time one stream may take to evaluate one block (matching, and computing its triggers; not
   * waiting for the node). A stream over it on BUDGET_STRIKES blocks in a row stops being
   * evaluated: it would delay every other. In a row, so that a pause of the whole process (a
   * garbage collection, a busy machine) that lands on an innocent stream once is not held against it.
   */
  budgetMs: number;
  /** A stream went over the budget and is no longer evaluated (for the metrics). */
  onSuspended?: (streamId: string) => void;
  /** Told whether the fast-path enqueue worked (an outage is logged once, not per block). */
  onEnqueue?: (err: unknown) => void;
  /** The matches of a block event and the delivery rows it created (not found from an earlier run). */
  onStored?: (matches: number, created: { kind: 'unconfirmed' | 'confirmed' | 'removal' }[]) => void;
}

/** How long the fast-path enqueue may take before the relay is left to do it. */
const ENQUEUE_TIMEOUT_MS = 2_000;
/** Blocks in a row over its budget after which a stream is no longer evaluated. */
const BUDGET_STRIKES = 3;

/**
 * One block event: match it against the stream index, complete the matched bodies with trigger
 * results and native balances (calls at that block, batched and de-duplicated across streams),
 * store each delivery (held when the stream is in error) naming its job (a deterministic id), and
 * enqueue it. PostgreSQL is the outbox: once the rows are committed the block is done, and the
 * enqueue is only the fast path. When Redis does not take it (down, restarting), the sender's
 * relay enqueues the pending rows whose job is missing. Idempotent: a replayed event finds its
 * delivery rows and enqueues only those still pending, under the jobs their rows name (BullMQ
 * drops duplicate ids).
 */
export function createBlockHandler(deps: BlockHandlerDeps): (event: BlockEvent) => Promise<number> {
  const completer = createBlockCompleter({ readers: deps.readers, logger: deps.logger });
  const tokens = createTokenCache({ pool: deps.pool });

  /** The fast path: resolves with the jobs handed to Redis, 0 when the relay is left to do it. */
  async function enqueueFast(jobs: { deliveryId: string; jobId: string }[]): Promise<number> {
    if (jobs.length === 0) return 0;
    const { enqueued, error } = await enqueueCommitted(deps.queue, jobs, { timeoutMs: ENQUEUE_TIMEOUT_MS });
    deps.onEnqueue?.(error);
    return enqueued;
  }

  /**
   * Stores the deliveries of one block (new ones, or those a replay finds) and enqueues the pending
   * ones under the jobs their rows name. A stream deleted meanwhile loses its rows, not the others'.
   */
  async function storeAndEnqueue(
    rows: NewDelivery[],
    matches: number,
    numbered: (row: NewDelivery) => boolean = () => false,
  ): Promise<number> {
    const stored = await insertDeliveries(deps.pool, rows).catch(async (err: { code?: string }) => {
      // A stream was deleted while this block was evaluated: store the others one by one.
      if (err.code !== '23503') throw err;
      const out = new Map<string, StoredDelivery>();
      for (const row of rows) {
        const one = await insertDelivery(deps.pool, row).catch((e: { code?: string }) => {
          if (e.code === '23503') return undefined;
          throw e;
        });
        if (one) out.set(deliveryKey(row.streamId, row.confirmed, row.removal), one);
      }
      return out;
    });
    const jobs: { deliveryId: string; jobId: string }[] = [];
    const created: { kind: 'unconfirmed' | 'confirmed' | 'removal' }[] = [];
    for (const row of rows) {
      const delivery = stored.get(deliveryKey(row.streamId, row.confirmed, row.removal));
      if (delivery?.created)
        created.push({ kind: row.removal ? 'removal' : row.confirmed ? 'confirmed' : 'unconfirmed' });
      // An ordered stream's confirmed webhook takes its number now, in block order (once: a replay
      // finds it numbered). Held ones too: they keep their place for when the stream is active again.
      if (delivery && numbered(row) && (delivery.status === 'pending' || delivery.status === 'held'))
        await assignSequence(deps.pool, row.streamId, delivery.id);
      // An unconfirmed row the block event itself did not create was delivered (or is on its way) already.
      if (!delivery || delivery.status !== 'pending') continue;
      jobs.push({ deliveryId: delivery.id, jobId: delivery.jobId ?? (row.jobId as string) });
    }
    deps.onStored?.(matches, created);
    return enqueueFast(jobs);
  }

  /**
   * An orphaned block never gets its confirmed webhook. The streams that opted in to removal
   * notices get one for each unconfirmed webhook of the block (sent or still owed).
   */
  async function handleRemoved(event: Extract<BlockEvent, { type: 'removed' }>): Promise<number> {
    const notified = deps.store.notifyingRemovals(event.chainId);
    if (notified.length === 0) return 0;
    const retracted = await findUnconfirmedDeliveries(deps.pool, event.chainId, event.block.hash, notified);
    if (retracted.length === 0) return 0;
    const jobIds = assignDeliveryJobs(
      retracted.map((d) =>
        jobIdFor({
          for: 'block',
          streamId: d.streamId,
          chainId: event.chainId,
          blockHash: event.block.hash,
          kind: 'removal',
        }),
      ),
    );
    const rows: NewDelivery[] = retracted.map((d, i) => ({
      id: randomUUID(),
      streamId: d.streamId,
      chainId: event.chainId,
      blockNumber: d.blockNumber,
      blockHash: event.block.hash,
      blockTimestamp: d.blockTimestamp,
      confirmed: false,
      removal: true,
      body: removalNoticeBody(d.body),
      status: deps.store.get(d.streamId)?.status === 'error' ? 'held' : 'pending',
      logsCount: d.logsCount,
      txsCount: d.txsCount,
      jobId: jobIds[i] as string,
    }));
    const enqueued = await storeAndEnqueue(rows, 0);
    deps.logger.info(
      { block: event.block.number, hash: event.block.hash, notices: rows.length, enqueued },
      'removal notices enqueued',
    );
    return enqueued;
  }

  /**
   * The block as its streams read it: when one of the streams that take it reads a part the event
   * lacks (transactions, internal transactions), that part is read from the node first; the
   * block waits while the node cannot give it. A block the node has replaced (orphaned) is
   * evaluated for the streams it carries enough for; the others are owed nothing for it.
   */
  async function completeFor(
    received: FullBlockEvent,
    takes: (s: CompiledStream) => boolean,
  ): Promise<{ event: FullBlockEvent; takes: (s: CompiledStream) => boolean }> {
    const needed = deps.store.index().readsOf(received.chainId, takes);
    const missing = missingContents(contentsOf(received), needed);
    if (isEmptyContents(missing)) return { event: received, takes };
    const completion = await completer.complete(received, missing);
    deps.onCompletion?.(completion.outcome);
    if (completion.outcome === 'completed') {
      deps.logger.info(
        {
          chainId: received.chainId,
          block: received.block.number,
          hash: received.block.hash,
          read: describeContents(missing),
        },
        'block completed from the node: a stream reads what it was published without',
      );
      return { event: completion.event, takes };
    }
    deps.logger.warn(
      {
        chainId: received.chainId,
        block: received.block.number,
        hash: received.block.hash,
        canonicalHash: completion.canonicalHash,
        missing: describeContents(missing),
      },
      'block orphaned before its missing parts could be read: streams that read them are not owed this block',
    );
    return { event: received, takes: (s) => takes(s) && coversContents(contentsOf(received), s.reads) };
  }

  const { budgetMs } = deps;
  // Blocks in a row over the budget, by stream (a block within it clears the count).
  const strikes = new Map<string, number>();
  /** Streams over the budget on enough blocks in a row: no longer evaluated, and told why. */
  async function suspendOverBudget(event: FullBlockEvent, cost: Map<CompiledStream, number>) {
    for (const [stream, ms] of cost) {
      if (ms <= budgetMs) {
        strikes.delete(stream.id);
        continue;
      }
      const count = (strikes.get(stream.id) ?? 0) + 1;
      if (count < BUDGET_STRIKES) {
        strikes.set(stream.id, count);
        continue;
      }
      strikes.delete(stream.id);
      const reason = `evaluating block ${event.block.number} of chain 0x${event.chainId.toString(16)} took ${Math.round(ms)} ms, over the budget of ${budgetMs} ms per stream and block (STREAM_BLOCK_BUDGET_MS) on ${BUDGET_STRIKES} blocks in a row: the stream is no longer evaluated; update it or set it active to try again`;
      const suspended = await suspendStreamEvaluation(deps.pool, stream.id, reason);
      await deps.store.reload(stream.id);
      if (!suspended) continue;
      deps.onSuspended?.(stream.id);
      deps.logger.warn(
        {
          streamId: stream.id,
          accountId: stream.accountId,
          block: event.block.number,
          ms: Math.round(ms),
          budgetMs,
        },
        'stream over its time budget: no longer evaluated',
      );
    }
  }

  return async (received) => {
    if (received.type === 'removed') return handleRemoved(received);
    if (deps.store.size() === 0) return 0;
    const { event, takes } = await completeFor(received, (s) =>
      isAfterStreamStart(s, received.chainId, received.block.number),
    );
    await tokens.prefetch(event.chainId, new Set(event.logs.map((l) => l.address)));
    const tokenInfo = (a: string) => tokens.get(event.chainId, a);
    const cost = new Map<CompiledStream, number>();
    const meter = (s: CompiledStream, ms: number) => cost.set(s, (cost.get(s) ?? 0) + ms);
    const matches = deps.store.index().match(event, tokenInfo, takes, meter);
    if (matches.length === 0) {
      await suspendOverBudget(event, cost);
      return 0;
    }

    const reader = deps.readers.forBlock(event.chainId, event.block);
    await Promise.all(
      matches
        .filter(
          ({ stream }) => stream.triggers.length > 0 || (stream.config.getNativeBalances ?? []).length > 0,
        )
        .map(({ stream, match }) => enrichMatch(stream, match.body, reader, (ms) => meter(stream, ms))),
    );

    // A confirmed block also owes its unconfirmed webhook: when the block was never seen as new
    // (the follower caught up after downtime, and published it once it was already deep), the
    // unconfirmed delivery is created here; when it was, its row exists and nothing changes.
    const confirmations = event.type === 'confirmed' ? [false, true] : [false];
    const wanted = confirmations.flatMap((confirmed) => matches.map((m) => ({ ...m, confirmed })));
    const jobIds = assignDeliveryJobs(
      wanted.map(({ stream, confirmed }) =>
        jobIdFor({
          for: 'block',
          streamId: stream.id,
          chainId: event.chainId,
          blockHash: event.block.hash,
          kind: confirmed ? 'confirmed' : 'unconfirmed',
        }),
      ),
    );
    const rows: NewDelivery[] = wanted.map(({ stream, match, confirmed }, i) => ({
      id: randomUUID(),
      streamId: stream.id,
      chainId: event.chainId,
      blockNumber: event.block.number,
      blockHash: event.block.hash,
      blockTimestamp: event.block.timestamp,
      confirmed,
      body: serializeWebhook(match.body.confirmed === confirmed ? match.body : { ...match.body, confirmed }),
      status: stream.status === 'error' ? 'held' : 'pending',
      logsCount: match.logsCount,
      txsCount: match.txsCount,
      jobId: jobIds[i] as string,
      ...(confirmed && stream.config.ordered === true ? { numbered: true } : {}),
    }));
    const enqueued = await storeAndEnqueue(rows, matches.length, (row) => row.numbered === true);
    // After its webhooks of this block are stored: they were computed already.
    await suspendOverBudget(event, cost);
    deps.logger.debug(
      {
        block: event.block.number,
        hash: event.block.hash,
        type: event.type,
        matched: matches.length,
        enqueued,
      },
      'deliveries enqueued',
    );
    return enqueued;
  };
}
