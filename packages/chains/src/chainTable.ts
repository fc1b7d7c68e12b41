export interface Chain {
  /** Names accepted in the `chain` query parameter (lower case). */
  names: string[];
  id: number;
  hex: `0x${string}`;
  /** Depth at which a block's confirmed webhook is sent (the hosted service's defaults). */
  confirmations: number;
}

const chain = (names: string[], hex: `0x${string}`, confirmations: number): Chain => ({
  names,
  id: Number.parseInt(hex, 16),
  hex,
  confirmations,
});

/** The interface spec's table (2.1); the spec wins where it differs from other sources (linea). */
export const SPEC_CHAINS: readonly Chain[] = [
  chain(['eth'], '0x1', 12),
  chain(['sepolia'], '0xaa36a7', 12),
  chain(['holesky'], '0x4268', 12),
  chain(['polygon'], '0x89', 100),
  chain(['polygon amoy'], '0x13882', 100),
  chain(['bsc'], '0x38', 18),
  chain(['bsc testnet'], '0x61', 18),
  chain(['avalanche'], '0xa86a', 100),
  chain(['fantom'], '0xfa', 100),
  chain(['palm'], '0x2a15c308d', 100),
  chain(['cronos'], '0x19', 100),
  chain(['arbitrum'], '0xa4b1', 18),
  chain(['gnosis'], '0x64', 100),
  chain(['gnosis testnet'], '0x27d8', 100),
  chain(['chiliz'], '0x15b38', 100),
  chain(['chiliz testnet'], '0x15b32', 100),
  chain(['base'], '0x2105', 100),
  chain(['base sepolia'], '0x14a34', 100),
  chain(['optimism'], '0xa', 500),
  chain(['optimism sepolia'], '0xaa37dc', 500),
  // The spec lists linea and linea sepolia with the same hex id; both names resolve to it.
  chain(['linea', 'linea sepolia'], '0xe705', 100),
  chain(['moonbeam'], '0x504', 100),
  chain(['moonriver'], '0x505', 100),
  chain(['moonbase'], '0x507', 100),
];

/** The local devnet (anvil's default chain id); shallow confirmations so demos confirm quickly. */
export const DEVNET_CHAIN: Chain = chain(['devnet', 'anvil'], '0x7a69', 2);
