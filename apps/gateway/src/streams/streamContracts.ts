import {
  deliveryStatsResponse,
  historyItem,
  historyPage,
  historyQuery,
  listenPage,
  listenQuery,
  replayPathParams,
  settingsBody,
  settingsResponse,
  streamAddressBody,
  streamAddressPage,
  streamAddressResponse,
  streamListQuery,
  streamPathParams,
  streamSequencePage,
  streamSequenceQuery,
  streamStatsPathParams,
  streamStatusBody,
} from '@tributary/schema';
import { streamBody, streamPage, streamResponse } from '@tributary/schema';
import type { RouteContract } from '../openapi/routeContract.ts';

const STREAM = { description: 'The stream', schema: streamResponse };
const NOT_FOUND = { description: 'No such stream in this account' };
const TEST_WEBHOOK_FAILED = {
  description:
    'The test webhook to webhookUrl did not get a 2xx, or the URL is not allowed: "Could not POST to <url>. ..."',
};
const BAD_LIST = { description: 'limit missing or outside 1..100, or a cursor that cannot be used' };
const RULES = {
  description:
    'The body breaks the stream rules or a limit (README Limits), or the account has its quota of streams: "Validation Failed" with details per field',
};
const BAD_ADDRESSES = { description: 'address is not an address or a list of addresses' };

function stream(contract: Omit<RouteContract, 'mount' | 'tag'>): RouteContract {
  return { mount: '', tag: 'streams', ...contract };
}

export const createStreamContract = stream({
  method: 'put',
  path: '/streams/evm',
  summary: 'Create a stream',
  description: 'A test webhook is POSTed to webhookUrl first; nothing is stored unless it gets a 2xx.',
  body: streamBody,
  responses: { 200: STREAM, 400: TEST_WEBHOOK_FAILED, 422: RULES },
});

export const listStreamsContract = stream({
  method: 'get',
  path: '/streams/evm',
  summary: "The account's streams",
  query: streamListQuery,
  responses: { 200: { description: 'A page of streams', schema: streamPage }, 400: BAD_LIST },
});

export const getStreamContract = stream({
  method: 'get',
  path: '/streams/evm/:id',
  summary: 'One stream',
  params: streamPathParams,
  responses: { 200: STREAM, 404: NOT_FOUND },
});

export const updateStreamContract = stream({
  method: 'post',
  path: '/streams/evm/:id',
  summary: 'Update a stream',
  description:
    'Given fields replace stored ones (null clears an optional one); the result must pass the rules.',
  params: streamPathParams,
  body: streamBody.partial(),
  responses: { 200: STREAM, 400: TEST_WEBHOOK_FAILED, 404: NOT_FOUND, 422: RULES },
});

export const deleteStreamContract = stream({
  method: 'delete',
  path: '/streams/evm/:id',
  summary: 'Delete a stream',
  params: streamPathParams,
  responses: { 200: { description: 'The deleted stream', schema: streamResponse }, 404: NOT_FOUND },
});

export const setStreamStatusContract = stream({
  method: 'post',
  path: '/streams/evm/:id/status',
  summary: 'Pause or resume a stream',
  description: 'Re-activation sends a test webhook first and releases the held deliveries.',
  params: streamPathParams,
  body: streamStatusBody,
  responses: {
    200: STREAM,
    400: TEST_WEBHOOK_FAILED,
    404: NOT_FOUND,
    422: { description: 'status is not "active" or "paused", or the stream is terminated' },
  },
});

const OVER_QUOTA = {
  description:
    'the stream or the account would hold more addresses than its quota (LIMIT_ADDRESSES_PER_STREAM, LIMIT_ADDRESSES_PER_ACCOUNT); nothing is changed',
};

function addressContract(method: 'post' | 'delete' | 'patch', summary: string): RouteContract {
  const quota: Record<number, typeof OVER_QUOTA> = method === 'delete' ? {} : { 422: OVER_QUOTA };
  return stream({
    method,
    path: '/streams/evm/:id/address',
    summary,
    params: streamPathParams,
    body: streamAddressBody,
    responses: {
      200: { description: 'The addresses as given', schema: streamAddressResponse },
      400: BAD_ADDRESSES,
      404: NOT_FOUND,
      ...quota,
    },
  });
}

export const addAddressesContract = addressContract('post', 'Add addresses to a stream');
export const removeAddressesContract = addressContract('delete', 'Remove addresses from a stream');
export const replaceAddressesContract = addressContract('patch', "Replace a stream's addresses");

export const listAddressesContract = stream({
  method: 'get',
  path: '/streams/evm/:id/address',
  summary: "A stream's addresses",
  params: streamPathParams,
  query: streamListQuery,
  responses: {
    200: { description: 'A page of addresses', schema: streamAddressPage },
    400: BAD_LIST,
    404: NOT_FOUND,
  },
});

export const historyContract: RouteContract = {
  mount: '',
  tag: 'history',
  method: 'get',
  path: '/history',
  summary: 'Webhook deliveries, newest first, with their payloads',
  query: historyQuery,
  responses: {
    200: { description: 'A page of deliveries', schema: historyPage },
    400: BAD_LIST,
    404: { description: 'streamId names no stream of this account' },
  },
};

export const replayContract: RouteContract = {
  mount: '',
  tag: 'history',
  method: 'post',
  path: '/history/replay/:streamId/:id',
  summary: 'Deliver a webhook again',
  params: replayPathParams,
  responses: {
    200: { description: 'The delivery, queued again', schema: historyItem },
    404: { description: 'No such delivery of this stream in this account' },
  },
};

export const statsContract: RouteContract = {
  mount: '',
  tag: 'stats',
  method: 'get',
  path: '/stats',
  summary: "Delivery counts of the account's streams",
  responses: { 200: { description: 'Counts', schema: deliveryStatsResponse } },
};

export const streamStatsContract: RouteContract = {
  mount: '',
  tag: 'stats',
  method: 'get',
  path: '/stats/:streamId',
  summary: 'Delivery counts of one stream',
  params: streamStatsPathParams,
  responses: { 200: { description: 'Counts', schema: deliveryStatsResponse }, 404: NOT_FOUND },
};

export const getSettingsContract: RouteContract = {
  mount: '',
  tag: 'settings',
  method: 'get',
  path: '/settings',
  summary: "The account's webhook signing secret",
  responses: {
    200: { description: 'The secret, also as a Standard Webhooks key', schema: settingsResponse },
  },
};

export const setSettingsContract: RouteContract = {
  mount: '',
  tag: 'settings',
  method: 'post',
  path: '/settings',
  summary: "Rotate the account's webhook signing secret (the previous one signs until the window ends)",
  body: settingsBody,
  responses: {
    200: { description: 'The new secret', schema: settingsResponse },
    422: { description: 'secretKey is not a string of 32 to 256 characters' },
  },
};

export const listenContract = stream({
  method: 'get',
  path: '/streams/evm/:id/listen',
  summary: "Long-poll a stream's new webhooks, signed (pnpm listen; beyond the hosted service)",
  description:
    "Without a cursor: answers at once, with none and a cursor after the webhooks stored so far. With one: the webhooks stored after it, oldest first (every kind and delivery status), as soon as there is one or when waitMs ends. Each comes with the headers the sender would send, signed now with the account's secrets.",
  params: streamPathParams,
  query: listenQuery,
  responses: {
    200: { description: 'Webhooks (maybe none) and the cursor to continue from', schema: listenPage },
    400: { description: 'limit or waitMs out of range, or a cursor that cannot be used' },
    404: NOT_FOUND,
  },
});

/** Every route of the stream interface, in registration order. */
export const streamSequenceContract: RouteContract = {
  mount: '',
  tag: 'streams',
  method: 'get',
  path: '/streams/evm/:id/sequence',
  summary: "An ordered stream's numbered webhooks between two sequence numbers (beyond the hosted service)",
  description:
    'What the receiver of an ordered stream should have received from `from` to `to` (at most 100), each with its status and body, to reconcile after a gap. Numbers whose webhook retention removed are absent.',
  params: streamPathParams,
  query: streamSequenceQuery,
  responses: {
    200: { description: 'The numbered webhooks, in order', schema: streamSequencePage },
    400: { description: 'from or to is not a sequence number, from is above to, or they span more than 100' },
    404: { description: 'No such stream in this account' },
  },
};

export const STREAM_CONTRACTS: readonly RouteContract[] = [
  createStreamContract,
  listStreamsContract,
  getStreamContract,
  updateStreamContract,
  deleteStreamContract,
  setStreamStatusContract,
  addAddressesContract,
  listAddressesContract,
  removeAddressesContract,
  replaceAddressesContract,
  historyContract,
  replayContract,
  statsContract,
  streamStatsContract,
  getSettingsContract,
  setSettingsContract,
  listenContract,
  streamSequenceContract,
];
