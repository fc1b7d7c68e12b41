export type {
  BlockSegment,
  ChainSegment,
  RemovedBlock,
  SegmentTransfer,
  TransferRow,
} from './chainRows.ts';
export { copyBinary } from './binaryCopy.ts';
export { projectChainSegment } from './projectChainSegment.ts';
export { AddressIds } from './addressIds.ts';
export {
  type BegunSegment,
  beginBlockSegment,
} from './projectBlockSegment.ts';
export { removeChainBlock } from './removeChainBlock.ts';
export {
  type SupplyCheck,
  findSupplyCheckBatch,
  recordSupplyChecks,
} from './tokenSupplyChecks.ts';
export {
  type FollowerBlock,
  commitFollowerBatch,
  loadFollowerState,
  recordFollowerBlocks,
  rewindFollower,
  listFollowedChainIds,
} from './followerState.ts';
export { findKnownAddressKinds, findKnownTokens } from './knownChainEntities.ts';
export {
  type BackfillRequest,
  advanceBackfill,
  backfillBlocksRemaining,
  cancelBackfill,
  followerCheckpointOf,
  getBackfillRequest,
  listOpenBackfills,
  nextBackfillRequest,
  requestBackfill,
} from './backfillRequests.ts';
export { createGapRepairStore } from './gapRepairStore.ts';
export { readStoredBlocks, storedBlockBounds } from './storedBlocks.ts';
