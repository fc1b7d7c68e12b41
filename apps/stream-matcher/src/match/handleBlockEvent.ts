import { randomUUID } from 'node:crypto';
import {
  type NewDelivery,
  type Pool,
  type StoredDelivery,
  findStreamTokens,
  deliveryKey,
  findUnconfirmedDeliveries,
  insertDeliveries,
  insertDelivery,
} from '@tributary/db';
import type { BlockEvent } from '@tributary/schema';
import { type TokenInfo, enrichMatch, isAfterStreamStart } from '@tributary/stream-rules';
import {
  assignDeliveryJobs,
  deliveryJobId,
  enqueueAssignedDeliveries,
  removalNoticeBody,
  serializeWebhook,
} from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { StreamStore } from '../load/createStreamStore.ts';
import type { BlockReaders } from '../read/createBlockReaders.ts';

export interface BlockHandlerDeps {
  pool: Pool;
  store: StreamStore;
  queue: Queue;
  logger: Logger;
  readers: BlockReaders;
  /** How long token metadata and spam flags are trusted before they are read again. */
  tokenCacheMs?: number;
  /** How long the fast-path enqueue may take before the relay is left to do it. */
  enqueueTimeoutMs?: number;
  /** Told whether the fast-path enqueue worked (an outage is logged once, not per block). */
  onEnqueue?: (err: unknown) => void;
  /** The matches of a block event and the delivery rows it created (not found from an earlier run). */
  onStored?: (matches: number, created: { kind: 'unconfirmed' | 'confirmed' | 'removal' }[]) => void;
}

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
  const ttl = deps.tokenCacheMs ?? 60_000;
  const tokenCache = new Map<string, { info: TokenInfo | undefined; at: number }>();

  async function prefetchTokens(chainId: number, addresses: Iterable<string>): Promise<void> {
    const now = Date.now();
    const missing: string[] = [];
    for (const a of addresses) {
      const hit = tokenCache.get(`${chainId}:${a}`);
      if (!hit || now - hit.at > ttl) missing.push(a);
    }
    if (missing.length === 0) return;
    const found = await findStreamTokens(deps.pool, chainId, missing);
    for (const a of missing) tokenCache.set(`${chainId}:${a}`, { info: found.get(a), at: now });
  }

  const timeoutMs = deps.enqueueTimeoutMs ?? 2_000;
  /** The fast path: resolves with the jobs handed to Redis, 0 when the relay is left to do it. */
  async function enqueueFast(jobs: { deliveryId: string; jobId: string }[]): Promise<number> {
    if (jobs.length === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        enqueueAssignedDeliveries(deps.queue, jobs),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`enqueue took over ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      deps.onEnqueue?.(undefined);
      return jobs.length;
    } catch (err) {
      deps.onEnqueue?.(err);
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Stores the deliveries of one block (new ones, or those a replay finds) and enqueues the pending
   * ones under the jobs their rows name. A stream deleted meanwhile loses its rows, not the others'.
   */
  async function storeAndEnqueue(rows: NewDelivery[], matches: number): Promise<number> {
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
      retracted.map((d) => deliveryJobId(d.streamId, event.chainId, event.block.hash, false, true)),
    );
    const rows: NewDelivery[] = retracted.map((d, i) => ({
      id: randomUUID(),
      streamId: d.streamId,
      chainId: event.chainId,
      blockNumber: d.blockNumber,
      blockHash: event.block.hash,
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

  return async (event) => {
    if (event.type === 'removed') return handleRemoved(event);
    if (deps.store.size() === 0) return 0;
    await prefetchTokens(event.chainId, new Set(event.logs.map((l) => l.address)));
    const tokenInfo = (a: string) => tokenCache.get(`${event.chainId}:${a}`)?.info;
    const matches = deps.store
      .index()
      .match(event, tokenInfo, (s) => isAfterStreamStart(s, event.chainId, event.block.number));
    if (matches.length === 0) return 0;

    const reader = deps.readers.forBlock(event.chainId, event.block.number);
    await Promise.all(
      matches
        .filter(
          ({ stream }) => stream.triggers.length > 0 || (stream.config.getNativeBalances ?? []).length > 0,
        )
        .map(({ stream, match }) => enrichMatch(stream, match.body, reader)),
    );

    // A confirmed block also owes its unconfirmed webhook: when the block was never seen as new
    // (the follower caught up after downtime, and published it once it was already deep), the
    // unconfirmed delivery is created here; when it was, its row exists and nothing changes.
    const confirmations = event.type === 'confirmed' ? [false, true] : [false];
    const wanted = confirmations.flatMap((confirmed) => matches.map((m) => ({ ...m, confirmed })));
    const jobIds = assignDeliveryJobs(
      wanted.map(({ stream, confirmed }) =>
        deliveryJobId(stream.id, event.chainId, event.block.hash, confirmed),
      ),
    );
    const rows: NewDelivery[] = wanted.map(({ stream, match, confirmed }, i) => ({
      id: randomUUID(),
      streamId: stream.id,
      chainId: event.chainId,
      blockNumber: event.block.number,
      blockHash: event.block.hash,
      confirmed,
      body: serializeWebhook(match.body.confirmed === confirmed ? match.body : { ...match.body, confirmed }),
      status: stream.status === 'error' ? 'held' : 'pending',
      logsCount: match.logsCount,
      txsCount: match.txsCount,
      jobId: jobIds[i] as string,
    }));
    const enqueued = await storeAndEnqueue(rows, matches.length);
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
