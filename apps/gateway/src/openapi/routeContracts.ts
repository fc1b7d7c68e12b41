import { contractLogsContract, tokenOwnersContract, walletTransfersContract } from '../data/dataContracts.ts';
import { BACKFILL_CONTRACTS } from '../streams/backfillContracts.ts';
import { STREAM_CONTRACTS } from '../streams/streamContracts.ts';
import type { RouteContract } from './routeContract.ts';

/** Every route the gateway serves behind its API key: the data interface, then the stream interface. */
export const ROUTE_CONTRACTS: readonly RouteContract[] = [
  tokenOwnersContract,
  walletTransfersContract,
  contractLogsContract,
  ...STREAM_CONTRACTS,
  ...BACKFILL_CONTRACTS,
];
