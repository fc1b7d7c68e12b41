import {
  streamBackfillBody,
  streamBackfillList,
  streamBackfillPathParams,
  streamBackfillResponse,
  streamPathParams,
} from '@tributary/schema';
import type { RouteContract } from '../openapi/routeContract.ts';

const BACKFILL = { description: 'The backfill', schema: streamBackfillResponse };
const NOT_FOUND = { description: 'No such stream in this account, or no such backfill of it' };

function backfill(contract: Omit<RouteContract, 'mount' | 'tag'>): RouteContract {
  return { mount: '', tag: 'backfills', ...contract };
}

export const createBackfillContract = backfill({
  method: 'post',
  path: '/streams/evm/:id/backfill',
  summary: 'Send a stream the webhooks of a past block range (beyond the hosted service)',
  description:
    "The range is evaluated with the stream's config and addresses as they are now, and its confirmed webhooks are sent in the hosted format with `backfillId` set, below live webhooks in priority. Blocks the query tables hold are read from them, the others from the chain's node. `dryRun` counts the blocks and matches and sends nothing. Poll GET .../backfill/{backfillId} for progress.",
  params: streamPathParams,
  body: streamBackfillBody,
  responses: {
    200: BACKFILL,
    404: NOT_FOUND,
    422: {
      description:
        'The body is not a range of the stream\'s chains up to the block the follower reached, spans more than LIMIT_BACKFILL_BLOCKS, the stream is terminated, or the account has LIMIT_BACKFILLS_PER_ACCOUNT running: "Validation Failed" with details per field',
    },
  },
});

export const listBackfillsContract = backfill({
  method: 'get',
  path: '/streams/evm/:id/backfill',
  summary: "A stream's backfills, newest first (the last 100)",
  params: streamPathParams,
  responses: { 200: { description: 'The backfills', schema: streamBackfillList }, 404: NOT_FOUND },
});

export const getBackfillContract = backfill({
  method: 'get',
  path: '/streams/evm/:id/backfill/:backfillId',
  summary: 'One backfill: its progress, where its blocks came from, its webhooks',
  params: streamBackfillPathParams,
  responses: { 200: BACKFILL, 404: NOT_FOUND },
});

export const cancelBackfillContract = backfill({
  method: 'delete',
  path: '/streams/evm/:id/backfill/:backfillId',
  summary: 'Cancel a running backfill',
  description:
    'No further block is evaluated; webhooks it already stored are still sent. Cancelling a finished backfill changes nothing and answers it as it is.',
  params: streamBackfillPathParams,
  responses: { 200: BACKFILL, 404: NOT_FOUND },
});

export const BACKFILL_CONTRACTS: readonly RouteContract[] = [
  createBackfillContract,
  listBackfillsContract,
  getBackfillContract,
  cancelBackfillContract,
];
