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
} from './streams.ts';
export {
  findStreamsChangedSince,
  getStreamSetVersion,
  getStreamVersion,
  loadMatchableStreamVersions,
} from './streamVersions.ts';
export { loadChainStreamKeys, loadStreamConfigs } from './chainStreamReaders.ts';
export {
  type StreamOverview,
  findDeliveryOwner,
  listStreamOverviews,
} from './streamOverviews.ts';
export { countAccountStreams, countAddresses, lockAccount } from './accountQuotas.ts';
export {
  addStreamAddresses,
  listStreamAddresses,
  loadStreamAddresses,
  removeStreamAddresses,
  replaceStreamAddresses,
} from './streamAddresses.ts';
export { findStreamTokens } from './streamTokens.ts';
export {
  type StreamWebhook,
  type StreamWebhookKey,
  listStreamWebhooks,
  streamWebhooksStart,
} from './streamWebhooks.ts';
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
} from './deliveries.ts';
export { type HistoryItem, listHistory, prepareReplay } from './deliveryHistory.ts';
export {
  countQueuedDeliveries,
  countStreamDeliveries,
  deliveryStats,
  foldDeliveryCounts,
} from './deliveryCounts.ts';
export {
  countDeliveriesByStatus,
  countStreamsByStatus,
} from './statusCounts.ts';
export {
  type DeliveryDay,
  type DroppedDay,
  createDeliveryDay,
  dropDeliveryDay,
  listDeliveryDays,
} from './deliveryPartitions.ts';
export {
  type ExpiredDeliveries,
  deliveriesRetainedSince,
  expireKeptDeliveries,
  withDeliveryMaintenanceLock,
} from './deliveryRetention.ts';
export {
  listPendingJobs,
  renameDeliveryJobs,
  setDeliveryJobs,
} from './deliveryJobs.ts';
export { findUnconfirmedDeliveries } from './unconfirmedDeliveries.ts';
export {
  assignSequence,
  findSequencedDeliveries,
  lastSequenceOf,
  nextInSequence,
} from './deliverySequences.ts';
export {
  type ClaimedStreamBackfill,
  type StreamBackfill,
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
} from './streamBackfills.ts';
