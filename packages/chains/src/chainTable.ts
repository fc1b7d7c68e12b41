export interface Chain {
  /** Names accepted in the `chain` query parameter (lower case). */
  names: string[];
  id: number;
  hex: `0x${string}`;
  /** Depth at which a block's confirmed webhook is sent (the hosted service's defaults). */
  confirmations: number;
  /** Typical time between blocks: how often a follower looks for a new head by default. */
  blockTimeMs: number;
}

const chain = (names: string[], hex: `0x${string}`, confirmations: number, blockTimeMs: number): Chain => ({
  names,
  id: Number.parseInt(hex, 16),
  hex,
  confirmations,
  blockTimeMs,
});

/** The interface spec's table (2.1), with linea mainnet as the official SDKs name it (see below). */
export const SPEC_CHAINS: readonly Chain[] = [
  chain(['eth'], '0x1', 12, 12_000),
  chain(['sepolia'], '0xaa36a7', 12, 12_000),
  chain(['holesky'], '0x4268', 12, 12_000),
  chain(['polygon'], '0x89', 100, 2_000),
  chain(['polygon amoy'], '0x13882', 100, 2_000),
  chain(['bsc'], '0x38', 18, 750),
  chain(['bsc testnet'], '0x61', 18, 750),
  chain(['avalanche'], '0xa86a', 100, 2_000),
  chain(['fantom'], '0xfa', 100, 1_000),
  chain(['palm'], '0x2a15c308d', 100, 5_000),
  chain(['cronos'], '0x19', 100, 6_000),
  chain(['arbitrum'], '0xa4b1', 18, 250),
  chain(['gnosis'], '0x64', 100, 5_000),
  chain(['gnosis testnet'], '0x27d8', 100, 5_000),
  chain(['chiliz'], '0x15b38', 100, 3_000),
  chain(['chiliz testnet'], '0x15b32', 100, 3_000),
  chain(['base'], '0x2105', 100, 2_000),
  chain(['base sepolia'], '0x14a34', 100, 2_000),
  chain(['optimism'], '0xa', 500, 2_000),
  chain(['optimism sepolia'], '0xaa37dc', 500, 2_000),
  // The spec's table lists linea with linea sepolia's id (0xe705). The official SDKs (npm moralis
  // EvmChain.LINEA = 59144; the Python SDK's chain list) and the hosted service name linea mainnet
  // 0xe708: both ids resolve, each to the chain it is (README, "Coming from the hosted service").
  chain(['linea'], '0xe708', 100, 2_000),
  chain(['linea sepolia'], '0xe705', 100, 2_000),
  chain(['moonbeam'], '0x504', 100, 6_000),
  chain(['moonriver'], '0x505', 100, 6_000),
  chain(['moonbase'], '0x507', 100, 6_000),
];

/**
 * Chains the official JavaScript SDK (npm moralis 2.27, EvmChain) still sends that the spec's table
 * leaves out (testnets since retired, ronin): their ids resolve, so an SDK call for one is answered
 * as for any chain this deployment does not follow, never "unknown chain".
 */
export const SDK_CHAINS: readonly Chain[] = [
  chain(['goerli'], '0x5', 12, 12_000),
  chain(['mumbai'], '0x13881', 100, 2_000),
  chain(['fuji', 'avalanche fuji'], '0xa869', 100, 2_000),
  chain(['fantom testnet'], '0xfa2', 100, 1_000),
  chain(['arbitrum goerli'], '0x66eed', 18, 250),
  chain(['ronin'], '0x7e4', 100, 3_000),
  chain(['base goerli'], '0x14a33', 100, 2_000),
];

/** The local devnet (anvil's default chain id); shallow confirmations so demos confirm quickly. */
export const DEVNET_CHAIN: Chain = chain(['devnet', 'anvil'], '0x7a69', 2, 1_000);

/** Confirmations and block time of an operator chain that does not give them. */
export const DEFAULT_CONFIRMATIONS = 12;
export const DEFAULT_BLOCK_TIME_MS = 2_000;
