import type { BlockEvent } from '@tributary/schema';
import type { Admin } from 'kafkajs';

/** A hole in what a consumer read of the block topic. */
export type Gap =
  | {
      /** Offsets of a partition did not follow each other: the broker lost messages (its log was
       * recreated empty, retention deleted them before they were read, the group's offsets expired). */
      kind: 'offsets';
      partition: number;
      expected: string;
      read: string;
    }
  | {
      /** A chain's blocks did not follow each other (a block published for the first time skipped some). */
      kind: 'blocks';
      chainId: number;
      after: number;
      read: number;
    };

/** A range the follower was asked to publish again because of a gap. */
interface Repair {
  gap: Gap;
  chainId: number;
  fromBlock: number;
  toBlock: number;
  /** The backfill request that re-publishes it. */
  requestId: string;
}

export interface GapGuard {
  /** A new group generation: the partitions read from their committed offsets (kafkajs GROUP_JOIN). */
  joined(assignment: Record<string, number[]>): void;
  /** The consumer itself moved `partition` to `offset` (a rewind after a failure). */
  sought(partition: number, offset: string): void;
  /**
   * A message is about to be processed: checks that it follows the one before in its partition.
   * A gap is repaired (the missing blocks requested from the follower) before this resolves; the
   * message is processed as usual either way (nothing is skipped).
   */
  read(partition: number, offset: string): Promise<void>;
  /** A block event is about to be processed: checks that its chain's new blocks follow each other. */
  readEvent(event: BlockEvent): Promise<void>;
  /** A message's work is durable: a `confirmed` event moves the chain's position. */
  processed(event: BlockEvent | undefined): void;
  /** Readiness: throws naming the gaps whose re-publishing is not done yet. */
  check(): Promise<void>;
  /** Writes the positions now (also done every FLUSH_MS). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** How often the positions are written (tests lengthen it to write them themselves). */
const FLUSH_MS = 1_000;

/**
 * Makes sure a Kafka that lost part of its log never makes a consumer of the block topic skip
 * blocks silently. kafkajs, asked for an offset the broker no longer has, quietly starts again
 * from the earliest one it has; and a broker recreated without its volume starts the topic again
 * from offset 0. So every message is checked: its offset must be the one after the last one read
 * from its partition (or the committed offset, after a join; or where the consumer itself sought),
 * and a chain's block published for the first time must follow the highest one read. A gap is
 * logged at error, counted, named in readiness, and repaired: for each followed chain, the
 * follower is asked (backfill_requests) to publish again the blocks after this group's durable
 * position (the highest block whose `confirmed` event it finished) up to its checkpoint, which
 * covers whatever the lost messages held; replays are no-ops downstream.
 */
export function createGapGuard(deps: {
  admin: Admin;
  topic: string;
  groupId: string;
  positions: {
    load(): Promise<Map<number, number>>;
    save(positions: Map<number, number>): Promise<void>;
  };
  /** Every followed chain and its follower's checkpoint. */
  checkpoints(): Promise<Map<number, number>>;
  /** Asks the chain's follower to publish [fromBlock, toBlock] again; the request's id. */
  requestRepublish(chainId: number, fromBlock: number, toBlock: number): Promise<string>;
  /** Whether the request is done (re-published or cancelled), and how far it got. */
  requestProgress(requestId: string): Promise<{ done: boolean; nextBlock: number } | undefined>;
  logger: { error(fields: object, msg: string): void; info(fields: object, msg: string): void };
  onGap?: (gap: Gap) => void;
  flushMs?: number;
}): GapGuard {
  // Where each partition's next message must be (undefined: not known yet).
  const expected = new Map<number, bigint>();
  let joining: Promise<void> = Promise.resolve();
  const highest = new Map<number, number>();
  const confirmedThrough = new Map<number, number>();
  let loaded: Promise<void> | undefined;
  let dirty = false;
  const repairs: Repair[] = [];

  const load = () => {
    loaded ??= deps.positions.load().then((p) => {
      for (const [chain, block] of p)
        confirmedThrough.set(chain, Math.max(block, confirmedThrough.get(chain) ?? -1));
    });
    return loaded;
  };

  async function repair(gap: Gap) {
    deps.onGap?.(gap);
    await load();
    const checkpoints = await deps.checkpoints();
    const ranges: { chainId: number; fromBlock: number; toBlock: number }[] = [];
    if (gap.kind === 'blocks') {
      ranges.push({ chainId: gap.chainId, fromBlock: gap.after + 1, toBlock: gap.read - 1 });
    } else {
      for (const [chainId, checkpoint] of checkpoints) {
        const fromBlock = (confirmedThrough.get(chainId) ?? -1) + 1;
        if (fromBlock <= checkpoint) ranges.push({ chainId, fromBlock, toBlock: checkpoint });
      }
    }
    for (const r of ranges) {
      const requestId = await deps.requestRepublish(r.chainId, r.fromBlock, r.toBlock);
      repairs.push({ gap, ...r, requestId });
      deps.logger.error(
        { gap, topic: deps.topic, group: deps.groupId, ...r, requestId },
        'gap in the block topic: the follower is asked to publish the missing blocks again',
      );
    }
    if (ranges.length === 0)
      deps.logger.error(
        { gap, topic: deps.topic, group: deps.groupId },
        'gap in the block topic: no block to publish again',
      );
  }

  const timer = setInterval(() => {
    guard.flush().catch(() => undefined); // PostgreSQL away: written at the next tick
  }, deps.flushMs ?? FLUSH_MS);
  timer.unref();

  const guard: GapGuard = {
    joined(assignment) {
      expected.clear();
      // Reading resumes where the group committed: the blocks another member read since this one
      // last held the partition (it was a standby, or lost it in a rebalance) are no gap.
      highest.clear();
      const partitions = assignment[deps.topic] ?? [];
      joining = (async () => {
        const [committed] = await deps.admin.fetchOffsets({ groupId: deps.groupId, topics: [deps.topic] });
        const ends = await deps.admin.fetchTopicOffsets(deps.topic);
        await load();
        for (const partition of partitions) {
          const c = committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
          const end = ends.find((p) => p.partition === partition);
          const low = BigInt(end?.low ?? '0');
          const high = BigInt(end?.high ?? '0');
          // Where kafkajs reads from: the committed offset, or (none, or one the broker no longer
          // has) the partition's first message.
          if (c === '-1') {
            expected.set(partition, low);
            // A group that has processed blocks before and has no committed offset here: the
            // topic was recreated (its offsets went with it) or they expired.
            if (confirmedThrough.size > 0 && high > low)
              await repair({
                kind: 'offsets',
                partition,
                expected: 'the committed offset (none is left)',
                read: low.toString(),
              });
            continue;
          }
          const at = BigInt(c);
          if (at >= low && at <= high) {
            expected.set(partition, at);
            continue;
          }
          // Below the first message kept: retention deleted messages never read. Beyond the last:
          // the log was lost (a broker recreated without its volume).
          expected.set(partition, low);
          await repair({ kind: 'offsets', partition, expected: c, read: low.toString() });
        }
      })().catch((err: unknown) => {
        // Without the committed offsets the first message of each partition is not checked.
        deps.logger.error(
          { err, topic: deps.topic },
          'could not read the committed offsets to check for gaps',
        );
      });
    },
    sought(partition, offset) {
      expected.set(partition, BigInt(offset));
    },
    async read(partition, offset) {
      await joining;
      const want = expected.get(partition);
      const got = BigInt(offset);
      expected.set(partition, got + 1n);
      if (want !== undefined && got !== want)
        await repair({ kind: 'offsets', partition, expected: want.toString(), read: offset });
    },
    async readEvent(event) {
      if (event.type === 'removed') return;
      const top = highest.get(event.chainId);
      if (top !== undefined && event.block.number > top + 1)
        await repair({ kind: 'blocks', chainId: event.chainId, after: top, read: event.block.number });
      if (top === undefined || event.block.number > top) highest.set(event.chainId, event.block.number);
    },
    processed(event) {
      if (!event || event.type !== 'confirmed') return;
      if (event.block.number > (confirmedThrough.get(event.chainId) ?? -1)) {
        confirmedThrough.set(event.chainId, event.block.number);
        dirty = true;
      }
    },
    async check() {
      for (let i = repairs.length - 1; i >= 0; i--) {
        const progress = await deps.requestProgress(repairs[i]!.requestId);
        if (progress === undefined || progress.done) repairs.splice(i, 1);
      }
      if (repairs.length === 0) return;
      const r = repairs[0]!;
      const what =
        r.gap.kind === 'offsets'
          ? `offsets of partition ${r.gap.partition} jumped from ${r.gap.expected} to ${r.gap.read}`
          : `chain ${r.gap.chainId} jumped from block ${r.gap.after} to ${r.gap.read}`;
      throw new Error(
        `a gap in ${deps.topic} (${what}): ${repairs.length} range(s) being published again, first chain ${r.chainId} blocks ${r.fromBlock}..${r.toBlock} (backfill request ${r.requestId})`,
      );
    },
    async flush() {
      if (!dirty) return;
      dirty = false;
      try {
        await deps.positions.save(new Map(confirmedThrough));
      } catch (err) {
        dirty = true;
        throw err;
      }
    },
    async stop() {
      clearInterval(timer);
      await guard.flush().catch(() => undefined);
    },
  };
  return guard;
}
