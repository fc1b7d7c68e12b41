export { MIGRATIONS_DIR, type Migration, loadMigrations, migrate } from './migrate.ts';
export {
  POOL_TIMEOUT_DEFAULTS,
  type PoolTimeouts,
  createPool,
  type Pool,
  type PoolClient,
} from './createPool.ts';
export { bytesToHex, hexToBytes } from './bytes.ts';
export {
  API_KEY_PREFIX_LENGTH,
  type ApiKeyAccount,
  type ApiKeyListing,
  type CreatedApiKey,
  type RevokeOutcome,
  createAccountWithKey,
  findAccountByApiKey,
  generateApiKey,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
} from './accounts/apiKeys.ts';
export type { LogPosition, SortOrder } from './queries/keyset.ts';
export {
  type WalletTransferRecord,
  type WalletTransfersFilter,
  type WalletTransfersQuery,
  countWalletTransfers,
  findWalletTransfers,
  latestTransferBlock,
} from './queries/walletTransfers.ts';
export {
  type ContractLogRecord,
  type ContractLogsQuery,
  findContractLogs,
} from './queries/contractLogs.ts';
export {
  type OwnerPosition,
  type TokenOwnerRecord,
  type TokenOwnersQuery,
  findTokenOwners,
} from './queries/tokenOwners.ts';
export { findFirstBlockAtOrAfter, findLastBlockAtOrBefore } from './queries/blocksByDate.ts';
export { type TokenMetadata, findTokenMetadata } from './queries/tokenMetadata.ts';
export {
  type StreamRow,
  deleteStream,
  getStream,
  getStreamById,
  insertStream,
  listStreams,
  loadMatchableStreams,
  recordStreamFailures,
  recordStreamHealth,
  setStreamStatus,
  suspendStreamEvaluation,
  terminateStaleErrorStreams,
  updateStreamConfig,
} from './streams/streams.ts';
export {
  addStreamAddresses,
  listStreamAddresses,
  loadStreamAddresses,
  removeStreamAddresses,
  replaceStreamAddresses,
} from './streams/streamAddresses.ts';
export {
  type DeliveryToSend,
  type NewDelivery,
  type StoredDelivery,
  deliveryKey,
  getDeliveriesToSend,
  insertDeliveries,
  insertDelivery,
  recordAttempt,
  recordDeliveredMany,
  releaseHeldDeliveries,
  setDeliveriesAside,
  setDeliveryStatus,
} from './streams/deliveries.ts';
export { type HistoryItem, listHistory, prepareReplay } from './streams/deliveryHistory.ts';
export {
  type StreamWebhook,
  type StreamWebhookKey,
  listStreamWebhooks,
  streamWebhooksStart,
} from './streams/streamWebhooks.ts';
export {
  type DeliveryStats,
  type StreamDeliveryCounts,
  countAccountDeliveries,
  countAllDeliveries,
  countQueuedDeliveries,
  countStreamDeliveries,
  deliveryStats,
  foldDeliveryCounts,
} from './streams/deliveryCounts.ts';
export {
  type DeliveryDay,
  type DroppedDay,
  createDeliveryDay,
  dropDeliveryDay,
  listDeliveryDays,
} from './streams/deliveryPartitions.ts';
export {
  type ExpiredDeliveries,
  deliveriesRetainedSince,
  expireKeptDeliveries,
  withDeliveryMaintenanceLock,
} from './streams/deliveryRetention.ts';
export {
  type PendingJob,
  listPendingJobs,
  renameDeliveryJobs,
  setDeliveryJobs,
} from './streams/deliveryJobs.ts';
export {
  type WebhookSecrets,
  getWebhookSecrets,
  rotateWebhookSecret,
} from './accounts/webhookSecrets.ts';
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
} from './chain/chainRows.ts';
export { type Cell, copyRows } from './chain/copyRows.ts';
export { BinaryCopyWriter, copyBinary, encodeFields } from './chain/binaryCopy.ts';
export { projectChainSegment } from './chain/projectChainSegment.ts';
export { AddressIds } from './chain/addressIds.ts';
export {
  LOG_COLUMNS,
  TRANSFER_COLUMNS,
  type BegunSegment,
  type SegmentResult,
  beginBlockSegment,
  projectBlockSegment,
} from './chain/projectBlockSegment.ts';
export { removeChainBlock } from './chain/removeChainBlock.ts';
export {
  type SupplyCheck,
  type SupplyCheckBatch,
  findSupplyCheckBatch,
  recordSupplyChecks,
} from './chain/tokenSupplyChecks.ts';
export {
  type FollowerBlock,
  type FollowerState,
  commitFollowerBatch,
  loadFollowerState,
  recordFollowerBlocks,
  rewindFollower,
  listFollowedChainIds,
} from './chain/followerState.ts';
export { type KnownToken, findKnownAddressKinds, findKnownTokens } from './chain/knownChainEntities.ts';
export { type StreamToken, findStreamTokens } from './streams/streamTokens.ts';
export {
  type WalletTransferTotalAtHead,
  type WalletTransfersHead,
  walletTransferTotalAtHead,
} from './queries/walletTransfers.ts';
export { type WalletRangeTotalQuery, walletRangeTotal } from './queries/walletRangeTotal.ts';
export { withTransaction } from './withTransaction.ts';
export {
  findStreamsChangedSince,
  getStreamSetVersion,
  getStreamVersion,
  loadMatchableStreamVersions,
} from './streams/streamVersions.ts';
export {
  type ChainStreamKey,
  loadChainStreamKeys,
  loadStreamConfigs,
} from './streams/chainStreamReaders.ts';
export { type UnconfirmedDelivery, findUnconfirmedDeliveries } from './streams/unconfirmedDeliveries.ts';
export {
  type DeliveryCounts,
  countDeliveriesByStatus,
  countStreamsByStatus,
} from './streams/statusCounts.ts';
export {
  type StreamOverview,
  findDeliveryOwner,
  listStreamOverviews,
} from './streams/streamOverviews.ts';
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
} from './chain/backfillRequests.ts';
export { acknowledgeDeadLetters, deadLettersAcknowledgedAt } from './ops/deadLetterAcks.ts';
export { createGapRepairStore } from './chain/gapRepairStore.ts';
export { countAccountStreams, countAddresses, lockAccount } from './streams/accountQuotas.ts';
export { type StoredBlock, readStoredBlocks, storedBlockBounds } from './chain/storedBlocks.ts';
export {
  type ClaimedStreamBackfill,
  type StreamBackfill,
  type StreamBackfillStatus,
  cancelStreamBackfill,
  claimStreamBackfill,
  commitStreamBackfillChunk,
  countBackfillDelivered,
  countBackfillPending,
  countRunningStreamBackfills,
  createStreamBackfill,
  failStreamBackfill,
  getStreamBackfill,
  listRunningStreamBackfills,
  listStreamBackfills,
  readStreamBackfillSnapshot,
  releaseStreamBackfill,
  setStreamBackfillWaiting,
} from './streams/streamBackfills.ts';
export {
  type SequencedDelivery,
  assignSequence,
  findSequencedDeliveries,
  lastSequenceOf,
  nextInSequence,
} from './streams/deliverySequences.ts';
