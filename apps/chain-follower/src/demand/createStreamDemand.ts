import type { Pool } from '@tributary/db';
import { getStreamSetVersion, loadChainStreamKeys, loadStreamConfigs } from '@tributary/db/streams';
import type { Logger } from '@tributary/runtime';
import { type BlockContents, NO_CONTENTS } from '@tributary/schema';
import { streamReads } from '@tributary/stream-rules';
import type { StreamConfig } from '@tributary/schema';

/**
 * What the chain's streams can read of its blocks: the rule the follower applies on every path
 * (head, catch-up, confirmations, requested backfill, a reorg's new branch) when it decides what
 * to fetch. A block that no stream can read is fetched with its logs only (history for the data
 * interface stays fast); a block after a stream's start gets what that stream reads (streamReads).
 */
export interface StreamDemand {
  /** Reads the chain's streams again when the stream set moved (one row read when it did not). */
  refresh(): Promise<void>;
  /** What every block of [from, to] must carry: what the streams that can read any of them read. */
  forRange(from: number, to: number): BlockContents;
}

interface Reader {
  configVersion: string;
  startAfter: number;
  reads: BlockContents;
}

export function createStreamDemand(deps: { pool: Pool; chainId: number; logger: Logger }): StreamDemand {
  const readers = new Map<string, Reader>();
  let setVersion = -1n;
  // Blocks after these read transactions / internal transactions (Infinity: none does).
  let transactionsAfter = Number.POSITIVE_INFINITY;
  let internalAfter = Number.POSITIVE_INFINITY;

  function summarize() {
    transactionsAfter = Number.POSITIVE_INFINITY;
    internalAfter = Number.POSITIVE_INFINITY;
    for (const r of readers.values()) {
      if (r.reads.transactions) transactionsAfter = Math.min(transactionsAfter, r.startAfter);
      if (r.reads.internalTransactions) internalAfter = Math.min(internalAfter, r.startAfter);
    }
  }

  return {
    async refresh() {
      // Read before the streams: a change after it moves the version again and is read next time.
      const version = await getStreamSetVersion(deps.pool);
      if (version === setVersion) return;
      const keys = await loadChainStreamKeys(deps.pool, deps.chainId);
      const changed = keys.filter((k) => readers.get(k.id)?.configVersion !== k.configVersion);
      const configs = await loadStreamConfigs(
        deps.pool,
        changed.map((k) => k.id),
      );
      const kept = new Set(keys.map((k) => k.id));
      for (const id of readers.keys()) if (!kept.has(id)) readers.delete(id);
      for (const k of keys) {
        const known = readers.get(k.id);
        if (known && known.configVersion === k.configVersion) {
          known.startAfter = k.startAfter;
          continue;
        }
        const config = configs.get(k.id);
        if (config)
          readers.set(k.id, {
            configVersion: k.configVersion,
            startAfter: k.startAfter,
            reads: streamReads(config as StreamConfig),
          });
      }
      const before = { transactionsAfter, internalAfter };
      summarize();
      setVersion = version;
      if (before.transactionsAfter !== transactionsAfter || before.internalAfter !== internalAfter) {
        deps.logger.info(
          {
            streams: readers.size,
            transactionsAfter: Number.isFinite(transactionsAfter) ? transactionsAfter : null,
            internalTransactionsAfter: Number.isFinite(internalAfter) ? internalAfter : null,
          },
          'what the streams read changed: blocks after these carry transactions / internal transactions',
        );
      }
    },
    forRange(_from, to) {
      // Streams only ever gain blocks as numbers grow: what the last block needs covers the range.
      if (to <= Math.min(transactionsAfter, internalAfter)) return NO_CONTENTS;
      return {
        transactions: to > transactionsAfter || to > internalAfter,
        internalTransactions: to > internalAfter,
      };
    },
  };
}
