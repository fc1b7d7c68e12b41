export {
  type Chain,
  DEFAULT_BLOCK_TIME_MS,
  DEFAULT_CONFIRMATIONS,
} from './chainTable.ts';
export {
  type ChainRegistry,
  createChainRegistry,
  parseExtraChains,
} from './createChainRegistry.ts';
