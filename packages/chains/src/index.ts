export { type Chain, DEVNET_CHAIN, SPEC_CHAINS } from './chainTable.ts';
export {
  type ChainRegistry,
  createChainRegistry,
  parseExtraChains,
  toHexChainId,
} from './createChainRegistry.ts';
