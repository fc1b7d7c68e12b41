export {
  SELECTORS,
  TRANSFER_SIGNATURE,
  TRANSFER_TOPIC0,
  ZERO_ADDRESS,
  eventTopic0,
  functionSelector,
} from './signatures.ts';
export { decodeCompactTransfer, decodeTransfer } from './decodeTransfer.ts';
export { decodeText, decodeUint, readTokenMetadata } from './readTokenMetadata.ts';
