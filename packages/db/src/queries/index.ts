export type { LogPosition, SortOrder } from './keyset.ts';
export {
  type WalletTransferRecord,
  type WalletTransferTotalAtHead,
  type WalletTransfersFilter,
  type WalletTransfersHead,
  type WalletTransfersQuery,
  countWalletTransfers,
  findWalletTransfers,
  latestTransferBlock,
  walletTransferTotalAtHead,
} from './walletTransfers.ts';
export { type WalletRangeTotalQuery, walletRangeTotal } from './walletRangeTotal.ts';
export { type ContractLogRecord, type ContractLogsQuery, findContractLogs } from './contractLogs.ts';
export {
  type OwnerPosition,
  type TokenOwnerRecord,
  type TokenOwnersQuery,
  findTokenOwners,
} from './tokenOwners.ts';
export { findFirstBlockAtOrAfter, findLastBlockAtOrBefore } from './blocksByDate.ts';
export { type TokenMetadata, findTokenMetadata } from './tokenMetadata.ts';
