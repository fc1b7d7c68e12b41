import { type BlockContents, normalizeContents } from '@tributary/schema';
import type { StreamConfig } from '@tributary/schema';

/**
 * What of a block a stream reads beyond its logs: the one rule the follower's demand and the
 * matcher's completeness check share. Native transactions are read by `includeNativeTxs` and by
 * an `advancedOptions` entry with `includeNativeTxs` (the transaction of each matched log);
 * internal transactions by `includeInternalTxs` (which also widens `includeAllTxLogs` to their
 * transactions). `streamReads.test.ts` holds matchBlock to it: a block stripped of what a stream
 * does not read gives that stream the very same webhook.
 */
export function streamReads(config: StreamConfig): BlockContents {
  return normalizeContents({
    transactions:
      config.includeNativeTxs === true ||
      (config.advancedOptions ?? []).some((o) => o.includeNativeTxs === true),
    internalTransactions: config.includeInternalTxs === true,
  });
}
