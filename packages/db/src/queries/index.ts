export type { SortOrder } from './keyset.ts';
export {
  type WalletTransferRecord,
  countWalletTransfers,
  findWalletTransfers,
  latestTransferBlock,
  walletTransferTotalAtHead,
} from './walletTransfers.ts';
export { walletRangeTotal } from './walletRangeTotal.ts';
export { findContractLogs } from './contractLogs.ts';
export {
  type TokenOwnerRecord,
  findTokenOwners,
} from './tokenOwners.ts';
export { findFirstBlockAtOrAfter, findLastBlockAtOrBefore } from './blocksByDate.ts';
export { type TokenMetadata, findTokenMetadata } from './tokenMetadata.ts';
