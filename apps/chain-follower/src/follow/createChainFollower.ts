import type { Pool } from '@tributary/db';
import {
  type FollowerBlock,
  commitFollowerBatch,
  loadFollowerState,
  recordFollowerBlocks,
  rewindFollower,
} from '@tributary/db/chain';
import { type Logger, type Registry, classifyFailure, sleep } from '@tributary/runtime';
import { type BlockContents, type BlockEvent, contentsOf, coversContents } from '@tributary/schema';
import type { StreamDemand } from '../demand/createStreamDemand.ts';
import type { BlockPublisher } from '../publish/createBlockPublisher.ts';
import { type CanonicalChain, createCanonicalChain } from '../reorg/createCanonicalChain.ts';
import { DeepReorgError, findForkPoint } from '../reorg/findForkPoint.ts';
import { ChainMismatchError, verifyChainIdentity } from '../reorg/verifyChainIdentity.ts';
import { createAdaptiveRange } from '../fetch/createAdaptiveRange.ts';
import { type BlockBody, createBlockEnricher } from '../fetch/createBlockEnricher.ts';
import { type Halt, type HaltKind, createFollowerHalt } from './createFollowerHalt.ts';
import type { HeadWatcher } from '../fetch/createHeadWatcher.ts';
import { createProgressReporter } from './createProgressReporter.ts';
import { createRequestedBackfill } from '../backfill/createRequestedBackfill.ts';
import type { Rpc } from '../rpc/createRpc.ts';
import { type FetchedBlock, createBlockFetcher } from '../fetch/fetchBlockRange.ts';

export interface FollowerOptions {
  chainId: number;
  /** A block this deep under the head is final: it gets its `confirmed` event. */
  confirmations: number;
  /** First block to publish when there is no checkpoint yet. */
  startBlock: number;
  /** Record is_contract of first-seen transfer parties (one eth_getCode each). */
  accountKinds: boolean;
  rangeBlocks: number;
  maxRangeBlocks: number;
  /** Logs per eth_getLogs call the range sizing aims at. */
  rangeTargetLogs: number;
  rpcConcurrency: number;
  maxBatchBlocks: number;
  headBatchBlocks: number;
  /** Blocks kept for reorg detection (follower_blocks). */
  reorgWindow: number;
  progressIntervalMs: number;
  /** While halted (another chain, a reorg deeper than the window) or failing for good: how often to look again. */
  haltRecheckMs: number;
}

export interface ChainFollower {
  /** Follows until the signal aborts; the in-flight batch is finished (published and checkpointed) first. */
  run(signal: AbortSignal): Promise<void>;
  /**
   * `halt`: why following stopped (readiness reports it), null while following. `failing`: a
   * step that fails the same way every time (not an outage): said until a step succeeds.
   */
  status(): { checkpoint: number; head: number; halt: Halt | null; failing: string | null };
}

/**
 * The follow loop: backfill in batches, then follow the head (and, there, re-publish ranges an
 * operator asked for: createRequestedBackfill); publish `removed` (newest first)
 * before a new branch, `confirmed` at depth; the checkpoint advances only after Kafka acked.
 * A node that serves another chain (its genesis block is not the checkpoint's) or a reorg deeper
 * than the kept blocks halts following with an alarm (createFollowerHalt) until it clears.
 */
export function createChainFollower(deps: {
  rpc: Rpc;
  pool: Pool;
  publisher: BlockPublisher;
  heads: HeadWatcher;
  /** What the chain's streams read of which blocks: decides what each fetch carries, on every path. */
  demand: StreamDemand;
  logger: Logger;
  metrics: Registry;
  options: FollowerOptions;
}): ChainFollower {
  const o = deps.options;
  const log = deps.logger.child({ chainId: o.chainId });
  const range = createAdaptiveRange({
    initial: o.rangeBlocks,
    max: o.maxRangeBlocks,
    targetLogs: o.rangeTargetLogs,
  });
  const fetcher = createBlockFetcher({ rpc: deps.rpc, range, concurrency: o.rpcConcurrency, logger: log });
  const chain: CanonicalChain = createCanonicalChain([]);
  const enricher = createBlockEnricher({
    rpc: deps.rpc,
    pool: deps.pool,
    chainId: o.chainId,
    logger: log,
    canonicalHash: (n) => chain.get(n)?.hash,
    accountKinds: o.accountKinds,
  });
  const progress = createProgressReporter({
    logger: log,
    metrics: deps.metrics,
    chainId: o.chainId,
    intervalMs: o.progressIntervalMs,
  });
  // Bodies of published, not yet confirmed blocks: their `confirmed` event repeats the same content.
  const unconfirmedBodies = new Map<string, BlockBody>();
  // Every fetch of block contents goes through here: what the streams read of [from, to] (the
  // demand), the same rule on the head, catch-up, confirmation, reorg and requested-backfill paths.
  const fetchForStreams = (from: number, to: number) =>
    fetcher.fetchRange(from, to, deps.demand.forRange(from, to));
  const requested = createRequestedBackfill({
    pool: deps.pool,
    chainId: o.chainId,
    chunkBlocks: o.maxBatchBlocks,
    fetchRange: fetchForStreams,
    enricher,
    canonicalHash: (n) => chain.get(n)?.hash,
    publisher: deps.publisher,
    logger: log,
    metrics: deps.metrics,
  });
  const halt = createFollowerHalt({ logger: log, metrics: deps.metrics, chainId: o.chainId });
  let checkpoint = o.startBlock - 1;
  let head = 0;
  // The genesis hash stored with the checkpoint, and the node's once it was found to be the same chain.
  let storedGenesis: string | null = null;
  let genesis: string | null = null;
  // Backfill reads the next range while the current one is published (one range ahead at most).
  let prefetched: {
    from: number;
    to: number;
    contents: BlockContents;
    blocks: Promise<FetchedBlock[]>;
  } | null = null;

  /**
   * Blocks [from, to], or the range read ahead from `from` when it is still deep enough (it may
   * be longer or shorter than [from, to] when the batch size changed: fetching it again would
   * spend a provider's calls twice), unless a stream created since reads more of it than it carries.
   */
  function fetchBackfill(from: number, to: number, deepEnd: number): Promise<FetchedBlock[]> {
    const ahead = prefetched;
    prefetched = null;
    if (
      ahead &&
      ahead.from === from &&
      ahead.to <= deepEnd &&
      coversContents(ahead.contents, deps.demand.forRange(ahead.from, ahead.to))
    )
      return ahead.blocks;
    return fetchForStreams(from, to);
  }

  function prefetch(from: number, to: number) {
    const contents = deps.demand.forRange(from, to);
    const blocks = fetcher.fetchRange(from, to, contents);
    blocks.catch(() => {}); // surfaces (and is retried) when the next step takes it
    prefetched = { from, to, contents, blocks };
  }

  const toFollowerBlock = (b: BlockBody, confirmed: boolean): FollowerBlock => ({
    number: b.block.number,
    hash: b.block.hash,
    parentHash: b.block.parentHash,
    timestamp: b.block.timestamp,
    confirmed,
  });

  async function removeAbove(fork: number, reason: string) {
    prefetched = null;
    const orphans = chain.above(fork);
    const events: BlockEvent[] = orphans.map((b) => ({
      type: 'removed',
      v: 2,
      chainId: o.chainId,
      block: {
        number: b.number,
        hash: b.hash as `0x${string}`,
        parentHash: b.parentHash as `0x${string}`,
        timestamp: b.timestamp,
      },
    }));
    if (orphans.some((b) => b.confirmed)) {
      log.error({ fork, depth: orphans.length }, 'reorg removed blocks that were already confirmed');
    }
    await deps.publisher.publish(events);
    const forkBlock = chain.get(fork);
    if (forkBlock) await rewindFollower(deps.pool, o.chainId, { number: fork, hash: forkBlock.hash });
    chain.truncateAbove(fork);
    enricher.forgetAbove(fork);
    for (const b of orphans) unconfirmedBodies.delete(b.hash);
    checkpoint = Math.min(checkpoint, fork);
    progress.reorg(orphans.length);
    log.warn(
      { reason, fork, depth: orphans.length, removed: orphans.map((b) => b.number) },
      'reorg: published removed events',
    );
  }

  /** The durable state into memory, replacing what was there (an operator may have reset it meanwhile). */
  async function loadState() {
    const state = await loadFollowerState(deps.pool, o.chainId);
    prefetched = null;
    chain.truncateAbove(-1);
    enricher.forgetAbove(-1);
    unconfirmedBodies.clear();
    chain.add(state.blocks);
    checkpoint = state.checkpoint ? state.checkpoint.number : o.startBlock - 1;
    storedGenesis = state.genesisHash;
    return state;
  }

  /** Throws ChainMismatchError when the node's chain is not the one the checkpoint belongs to. */
  async function verifyChain() {
    const oldest = chain.oldest();
    genesis = await verifyChainIdentity({
      chainId: o.chainId,
      storedGenesis,
      oldestKept: oldest === undefined ? undefined : chain.get(oldest),
      fetchHeader: (n) => fetcher.fetchHeader(n),
    });
  }

  /** Before following (at start, after a halt): same chain, no reorg deeper than the window, no stale intents. */
  async function prepare() {
    await loadState();
    await verifyChain();
    if (halt.current()?.kind === 'deep-reorg') {
      const tip = chain.tip();
      const theirs = tip && (await fetcher.fetchHeader(tip.number));
      // Throws DeepReorgError again while the node has none of the kept blocks.
      if (tip && theirs?.hash !== tip.hash) await handleReorg(tip.number);
    }
    await reconcileIntents();
  }

  /** A deep reorg seen against another chain is that chain's fault: say which it is. */
  async function classify(err: DeepReorgError | ChainMismatchError): Promise<[HaltKind, Error]> {
    if (err instanceof ChainMismatchError) return ['chain-mismatch', err];
    try {
      await verifyChain();
    } catch (mismatch) {
      if (mismatch instanceof ChainMismatchError) return ['chain-mismatch', mismatch];
    }
    return ['deep-reorg', err];
  }

  async function handleReorg(from: number) {
    const fork = await findForkPoint(chain, from, (n) => fetcher.fetchHeader(n));
    await removeAbove(fork, 'parent hash mismatch');
  }

  /** Blocks recorded (maybe published) past the checkpoint before a crash: remove those the node no longer has. */
  async function reconcileIntents() {
    const intents = chain.above(checkpoint).reverse();
    for (const b of intents) {
      const theirs = await fetcher.fetchHeader(b.number);
      if (!theirs || theirs.hash !== b.hash) {
        await removeAbove(b.number - 1, 'stale blocks recorded before a restart');
        return;
      }
    }
  }

  async function confirmationEvents(due: FollowerBlock[]): Promise<BlockEvent[]> {
    const events: BlockEvent[] = [];
    for (const b of due) {
      let body = unconfirmedBodies.get(b.hash);
      // A stream created since the block was first published may read more of it than it carried.
      if (body && !coversContents(contentsOf(body), deps.demand.forRange(b.number, b.number)))
        body = undefined;
      if (!body) {
        const [fetched] = await fetchForStreams(b.number, b.number);
        if (!fetched || fetched.header.hash !== b.hash) break; // the chain moved: the reorg check handles it
        body = (await enricher.enrich([fetched])).bodies[0]!;
      }
      events.push({ type: 'confirmed', ...body });
    }
    return events;
  }

  /** Confirmations recorded (after Kafka acked them), with the checkpoint moved when a batch was published. */
  async function commit(
    confirmations: BlockEvent[],
    published?: { recorded: FollowerBlock[]; genesisHash: string },
  ) {
    const numbers = confirmations.filter((e) => e.type === 'confirmed').map((e) => e.block.number);
    const last = published?.recorded[published.recorded.length - 1];
    const keepFrom = last ? last.number - o.reorgWindow : 0;
    await commitFollowerBatch(deps.pool, o.chainId, {
      confirmed: numbers,
      ...(published && last
        ? {
            checkpoint: {
              number: last.number,
              hash: last.hash,
              genesisHash: published.genesisHash,
              keepFrom,
            },
          }
        : {}),
    });
    chain.markConfirmed(numbers);
    for (const e of confirmations) unconfirmedBodies.delete(e.block.hash);
    if (!published || !last) return;
    storedGenesis = published.genesisHash;
    chain.add(published.recorded);
    chain.pruneBelow(keepFrom);
    checkpoint = last.number;
  }

  /** Stage 1: the node's head; a reorg at the head is handled here (true: the step is done). */
  async function readHead(): Promise<boolean> {
    await deps.demand.refresh();
    const latest = await fetcher.fetchHeader('latest');
    if (!latest) throw new Error('node returned no latest block');
    head = latest.number;
    progress.lag(head, checkpoint);
    // A node behind the checkpoint may be lagging, or be another chain (a devnet restarted from genesis).
    if (head < checkpoint) await verifyChain();
    const ours = chain.get(head);
    if (ours && ours.hash !== latest.hash) {
      await handleReorg(head);
      return true;
    }
    return false;
  }

  /** At the head, nothing new: confirmations due, a chunk of an operator's backfill request, or wait for a head. */
  async function atHead(signal: AbortSignal) {
    const due = await confirmationEvents(chain.unconfirmedUpTo(head - o.confirmations));
    if (due.length > 0) {
      await deps.publisher.publish(due);
      await commit(due);
      log.info({ blocks: due.map((e) => e.block.number) }, 'published confirmations');
    }
    // The next step checks the head first.
    if (await requested.step(Math.min(checkpoint, head - o.confirmations))) return;
    await deps.heads.waitForNewHead(signal);
  }

  /** Stage 2: the next blocks, deep ones (backfill, read one range ahead) or at the head; undefined: a reorg was handled. */
  async function readBatch(next: number): Promise<{ blocks: FetchedBlock[]; backfill: boolean } | undefined> {
    const deepEnd = head - o.confirmations;
    const backfill = next <= deepEnd;
    const size = backfill ? Math.min(o.maxBatchBlocks, range.size() * o.rpcConcurrency) : o.headBatchBlocks;
    const to = Math.min(backfill ? deepEnd : head, next + size - 1);
    const blocks = backfill ? await fetchBackfill(next, to, deepEnd) : await fetchForStreams(next, to);
    const end = next + blocks.length - 1;
    if (backfill && end < deepEnd) prefetch(end + 1, Math.min(deepEnd, end + size));
    const prev = chain.get(next - 1);
    if (prev && blocks[0] && blocks[0].header.parentHash !== prev.hash) {
      await handleReorg(next - 1);
      return undefined;
    }
    return { blocks, backfill };
  }

  /**
   * Stage 3: the batch enriched, recorded as an intent, then published with the confirmations
   * due; stage 4 (commit) records what Kafka acked in one transaction.
   */
  async function publishBatch(next: number, batch: { blocks: FetchedBlock[]; backfill: boolean }) {
    const { backfill } = batch;
    const enriched = await enricher.enrich(batch.blocks);
    const type = backfill ? 'confirmed' : 'new';
    const events: BlockEvent[] = enriched.bodies.map((b) => ({ type, ...b }));
    const confirmations = await confirmationEvents(chain.unconfirmedUpTo(head - o.confirmations));
    const recorded = enriched.bodies.map((b) => toFollowerBlock(b, backfill));

    await recordFollowerBlocks(deps.pool, o.chainId, recorded);
    // Confirmed events stay in block order. Deep blocks published for the first time (a backfill
    // step) are confirmed at once: the older blocks' confirmations go before them. At the head the
    // new blocks go first, as the gap guards expect: a consumer that takes over at a step's start
    // reads the chain's newest block before the confirmations that lag behind it.
    await deps.publisher.publish(backfill ? [...confirmations, ...events] : [...events, ...confirmations]);
    enriched.commit();
    // verifyChain ran before the first step: the genesis is the node's, and the same chain's.
    await commit(confirmations, { recorded, genesisHash: genesis! });
    const last = recorded[recorded.length - 1]!;
    if (!backfill) for (const b of enriched.bodies) unconfirmedBodies.set(b.block.hash, b);
    progress.lag(head, checkpoint);
    progress.published({
      from: next,
      to: last.number,
      logs: enriched.bodies.reduce((n, b) => n + b.logs.length, 0),
      head,
      mode: backfill ? 'backfill' : 'head',
      lastTimestamp: Number(last.timestamp),
      rangeBlocks: range.size(),
    });
  }

  /** One step: the head, then at the head a wait, else the next batch read and published. */
  async function step(signal: AbortSignal) {
    if (await readHead()) return;
    const next = checkpoint + 1;
    if (next > head) return atHead(signal);
    const batch = await readBatch(next);
    if (batch) await publishBatch(next, batch);
  }

  // A step that failed for good (deterministic): retried slowly, said in readiness meanwhile.
  let failing: string | null = null;
  return {
    status: () => ({ checkpoint, head, halt: halt.current(), failing }),
    async run(signal) {
      log.info({ startBlock: o.startBlock }, 'follower starting');
      let backoff = 250;
      let prepared = false;
      let preparedOnce = false;
      while (!signal.aborted) {
        try {
          if (!prepared) {
            await prepare();
            prepared = true;
            const state = { checkpoint, known: chain.above(-1).length, genesis };
            log.info(state, preparedOnce ? 'following again from the recorded state' : 'following');
            preparedOnce = true;
          }
          await step(signal);
          halt.clear();
          if (failing !== null) log.info({ block: checkpoint }, 'follow step works again');
          failing = null;
          backoff = 250;
        } catch (err) {
          if (err instanceof DeepReorgError || err instanceof ChainMismatchError) {
            // Retrying cannot fix these and exiting would only loop: stay up, alarmed, and look again.
            const [kind, why] = await classify(err);
            halt.set(kind, why);
            prepared = false;
            await sleep(o.haltRecheckMs, signal);
            continue;
          }
          // The failed step may have sent its events (recorded as intents) without moving the
          // checkpoint, and what is in memory no longer says what went out: start over from the
          // durable state, as after a crash, so intents the node has since dropped get `removed`.
          prepared = false;
          const failure = classifyFailure(err);
          if (failure.kind === 'deterministic') {
            // Nothing to set aside here (the follower is the source): it never skips a block, so
            // it says what fails, in the log and readiness, and tries again now and then.
            failing = `blocks from ${checkpoint + 1}: ${failure.why}`;
            const retryInMs = o.haltRecheckMs;
            log.error(
              { err, block: checkpoint + 1, failure: failure.why, retryInMs },
              'follow step failed for good; trying again',
            );
            await sleep(retryInMs, signal);
            continue;
          }
          log.warn({ err, block: checkpoint + 1, retryInMs: backoff }, 'follow step failed; retrying');
          await sleep(backoff, signal);
          backoff = Math.min(backoff * 2, 30_000);
        }
      }
      log.info({ checkpoint }, 'follower stopped');
    },
  };
}
