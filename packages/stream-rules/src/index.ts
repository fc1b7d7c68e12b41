export {
  type StreamConfig,
  TRIGGER_TYPES,
  type ValidationDetails,
  type ValidationResult,
  streamBody,
  validateStreamConfig,
} from './streamConfig.ts';
export { type AbiEvent, abiEvents, topic0OfSignature } from './eventSignature.ts';
export { BUILTIN_FIELDS, checkFilterShape, evaluateFilter } from './evaluateFilter.ts';
export {
  type CompiledStream,
  compileStream,
  isAfterStreamStart,
} from './compileStream.ts';
export {
  type BlockMatch,
  IncompleteBlockError,
  type MatchCandidates,
  TRANSFER_TOPIC,
  matchBlock,
} from './matchBlock.ts';
export { StreamIndex } from './streamIndex.ts';
export { streamReads } from './streamReads.ts';
export { DEFAULT_STREAM_LIMITS, STREAM_LIMIT_VARIABLES, type StreamLimits } from './streamLimits.ts';
export { type ItemKind, itemKindOf, resolveSelector } from './selectors.ts';
export {
  type CompiledTrigger,
  type ContractCall,
  compileTriggers,
  formatTriggerValue,
  planTriggerCall,
  triggerResult,
} from './triggers.ts';
export { type ChainReader, decodeWebhookLog, enrichMatch } from './enrichMatch.ts';
export { streamPage, streamResponse } from './streamResponse.ts';
