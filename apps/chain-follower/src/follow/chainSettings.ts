import {
  type Chain,
  DEFAULT_BLOCK_TIME_MS,
  DEFAULT_CONFIRMATIONS,
  createChainRegistry,
} from '@tributary/chains';

export interface ChainSettings {
  /** The chain CHAIN_ID names in the table (spec, devnet or EXTRA_CHAINS); undefined when unknown. */
  chain: Chain | undefined;
  confirmations: number;
  pollIntervalMs: number;
}

/**
 * The follower's confirmation depth and head polling interval: the variables when set, otherwise
 * the chain table's. Polling at half the block time notices a head early, bounded so that slow chains
 * are still looked at every second and fast ones are not asked more than four times a second.
 */
export function chainSettings(env: {
  CHAIN_ID: number;
  EXTRA_CHAINS: readonly Chain[];
  CONFIRMATIONS?: number | undefined;
  POLL_INTERVAL_MS?: number | undefined;
}): ChainSettings {
  const chain = createChainRegistry(env.EXTRA_CHAINS).byId(env.CHAIN_ID);
  const blockTimeMs = chain?.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS;
  return {
    chain,
    confirmations: env.CONFIRMATIONS ?? chain?.confirmations ?? DEFAULT_CONFIRMATIONS,
    pollIntervalMs: env.POLL_INTERVAL_MS ?? Math.min(1_000, Math.max(250, Math.round(blockTimeMs / 2))),
  };
}
