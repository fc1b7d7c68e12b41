export type {
  AddressKindRow,
  BlockRow,
  BlockSegment,
  ChainSegment,
  LogRow,
  RemovedBlock,
  SegmentBlock,
  SegmentLog,
  SegmentTransfer,
  TokenRow,
  TransferRow,
} from './chainRows.ts';
export { type Cell, copyRows } from './copyRows.ts';
export { BinaryCopyWriter, copyBinary, encodeFields } from './binaryCopy.ts';
export { projectChainSegment } from './projectChainSegment.ts';
export { AddressIds } from './addressIds.ts';
export {
  LOG_COLUMNS,
  TRANSFER_COLUMNS,
  type BegunSegment,
  type SegmentResult,
  beginBlockSegment,
  projectBlockSegment,
} from './projectBlockSegment.ts';
export { removeChainBlock } from './removeChainBlock.ts';
export {
  type SupplyCheck,
  type SupplyCheckBatch,
  findSupplyCheckBatch,
  recordSupplyChecks,
} from './tokenSupplyChecks.ts';
export {
  type FollowerBlock,
  type FollowerState,
  commitFollowerBatch,
  loadFollowerState,
  recordFollowerBlocks,
  rewindFollower,
  listFollowedChainIds,
} from './followerState.ts';
export { type KnownToken, findKnownAddressKinds, findKnownTokens } from './knownChainEntities.ts';
export {
  type BackfillRequest,
  type CancelBackfillResult,
  advanceBackfill,
  backfillBlocksRemaining,
  cancelBackfill,
  followerCheckpointOf,
  getBackfillRequest,
  listOpenBackfills,
  nextBackfillRequest,
  requestBackfill,
  requestBackfillOnce,
} from './backfillRequests.ts';
export { createGapRepairStore } from './gapRepairStore.ts';
export { type StoredBlock, readStoredBlocks, storedBlockBounds } from './storedBlocks.ts';
