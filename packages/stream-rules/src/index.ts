export { validateStreamConfig } from './streamConfig.ts';
export {
  type CompiledStream,
  compileStream,
  isAfterStreamStart,
} from './compileStream.ts';
export { TRANSFER_TOPIC } from './matchBlock.ts';
export { StreamIndex } from './streamIndex.ts';
export { streamReads } from './streamReads.ts';
export { DEFAULT_STREAM_LIMITS, STREAM_LIMIT_VARIABLES, type StreamLimits } from './streamLimits.ts';
export type { ContractCall } from './triggers.ts';
export { type ChainReader, enrichMatch } from './enrichMatch.ts';
