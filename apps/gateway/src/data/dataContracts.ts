import {
  contractLogsQuery,
  contractPathParams,
  logsPage,
  ownersPage,
  tokenOwnersQuery,
  tokenPathParams,
  transfersPage,
  walletPathParams,
  walletTransfersQuery,
} from '@tributary/schema';
import type { RouteContract } from '../openapi/routeContract.ts';

const BAD_PARAMETER = {
  description: 'A parameter that cannot be used: address, chain, block, date, limit, order or cursor',
};

/** Spec 4.1. */
export const walletTransfersContract: RouteContract = {
  method: 'get',
  mount: '/api/v2.2',
  path: '/:address/erc20/transfers',
  tag: 'data',
  summary: 'ERC20 transfers of a wallet',
  description:
    'Newest first by default. from_block wins over from_date, to_block over to_date. `total` counts the whole range.',
  params: walletPathParams,
  query: walletTransfersQuery,
  responses: { 200: { description: 'A page of transfers', schema: transfersPage }, 400: BAD_PARAMETER },
};

/** Spec 4.2. */
export const contractLogsContract: RouteContract = {
  method: 'get',
  mount: '/api/v2.2',
  path: '/:address/logs',
  tag: 'data',
  summary: 'Logs of a contract',
  description:
    'topic0 is required. block_number wins over from_block/to_block; any block parameter wins over the dates.',
  params: contractPathParams,
  query: contractLogsQuery,
  responses: { 200: { description: 'A page of logs', schema: logsPage }, 400: BAD_PARAMETER },
};

/** Spec 4.3. */
export const tokenOwnersContract: RouteContract = {
  method: 'get',
  mount: '/api/v2.2',
  path: '/erc20/:token_address/owners',
  tag: 'data',
  summary: 'Holders of an ERC20 token',
  description: 'Largest balance first by default, with the share of the total supply.',
  params: tokenPathParams,
  query: tokenOwnersQuery,
  responses: { 200: { description: 'A page of holders', schema: ownersPage }, 400: BAD_PARAMETER },
};
