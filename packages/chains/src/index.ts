export {
  type Chain,
  DEFAULT_BLOCK_TIME_MS,
  DEFAULT_CONFIRMATIONS,
  DEVNET_CHAIN,
  SPEC_CHAINS,
} from './chainTable.ts';
export {
  type ChainRegistry,
  createChainRegistry,
  parseExtraChains,
  toHexChainId,
} from './createChainRegistry.ts';
