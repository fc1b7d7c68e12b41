import { type PoolClient, withTransaction } from '@tributary/db';
import {
  addStreamAddresses,
  countAddresses,
  getStream,
  listStreamAddresses,
  lockAccount,
  removeStreamAddresses,
  replaceStreamAddresses,
} from '@tributary/db/streams';
import express, { type Request, type Response, type Router } from 'express';
import { streamAddressBody, streamListQuery } from '@tributary/schema';
import { z } from 'zod';
import { BadRequestError, NotFoundError, ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import type { Query } from '../params/queryParams.ts';
import { listLimit } from './pageParams.ts';
import { parseQuery } from '../params/parseQuery.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import {
  addAddressesContract,
  listAddressesContract,
  removeAddressesContract,
  replaceAddressesContract,
} from './streamContracts.ts';
import { type StreamRouteDeps, accountOf, streamIdParam } from './streamDeps.ts';
import { QUOTA_VARIABLES } from './streamLimitsEnv.ts';
import { streamChangeOf } from '@tributary/bus';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const listKey = z.string().regex(/^0x[0-9a-f]{40}$/);

/** Address sets of 50,000+ entries are larger than the default body limit. */
const bigJson = express.json({ limit: '32mb' });

function parseAddresses(body: unknown): { given: string | string[]; list: string[] } {
  const parsed = streamAddressBody.safeParse(body);
  if (!parsed.success) throw new BadRequestError('address must be a string or an array of strings');
  const given = parsed.data.address;
  const list = (Array.isArray(given) ? given : [given]).map((a) => a.trim());
  if (list.some((a) => !ADDRESS.test(a))) throw new BadRequestError('Invalid address provided');
  return { given, list: [...new Set(list.map((a) => a.toLowerCase()))] };
}

async function ownStream(deps: StreamRouteDeps, req: Request, res: Response): Promise<string> {
  const id = streamIdParam(req.params['id']);
  if (!(await getStream(deps.pool, accountOf(res).id, id))) throw new NotFoundError('Stream not found');
  return id;
}

/**
 * Changes a stream's addresses in a transaction that fails (and changes nothing) when the stream
 * or the account would hold more addresses than its quota: what the matchers hold in memory.
 */
async function withinQuotas(
  deps: StreamRouteDeps,
  accountId: string,
  streamId: string,
  change: (client: PoolClient) => Promise<unknown>,
): Promise<void> {
  const { addressesPerStream, addressesPerAccount } = deps.limits.quotas;
  await withTransaction(deps.pool, async (client) => {
    await lockAccount(client, accountId);
    await change(client);
    const held = await countAddresses(client, accountId, streamId);
    if (held.stream > addressesPerStream)
      throw new ValidationError({
        address: {
          message: `the stream would hold ${held.stream} addresses: the limit is ${addressesPerStream} (${QUOTA_VARIABLES.addressesPerStream})`,
        },
      });
    if (held.account > addressesPerAccount)
      throw new ValidationError({
        address: {
          message: `the account's streams would hold ${held.account} addresses: the limit is ${addressesPerAccount} (${QUOTA_VARIABLES.addressesPerAccount})`,
        },
      });
  });
}

/** POST (add) / GET (list) / DELETE (remove) / PATCH (replace) /streams/evm/{id}/address. */
export function addAddressRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, addAddressesContract, bigJson, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const { given, list } = parseAddresses(req.body);
    await withinQuotas(deps, accountOf(res).id, id, (client) => addStreamAddresses(client, id, list));
    deps.announceChange(streamChangeOf(id, 'addresses'));
    sendJson(res, 200, { streamId: id, address: given });
  });

  registerRoute(router, listAddressesContract, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const q = parseQuery(streamListQuery, req.query as Query);
    const limit = listLimit(q.limit);
    const binding = deps.cursors.bind('streams/evm/address', { id, limit });
    const state = q.cursor ? deps.cursors.decode(binding, q.cursor, listKey) : undefined;
    const { addresses, total } = await listStreamAddresses(deps.pool, id, limit, state?.key);
    const body: Record<string, unknown> = { result: addresses.map((address) => ({ address })), total };
    const page = state?.page ?? 0;
    const last = addresses[addresses.length - 1];
    if (last && addresses.length === limit && (page + 1) * limit < total) {
      body['cursor'] = deps.cursors.encode(binding, { page: page + 1, key: last });
    }
    sendJson(res, 200, body);
  });

  registerRoute(router, removeAddressesContract, bigJson, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const { given, list } = parseAddresses(req.body);
    await removeStreamAddresses(deps.pool, id, list);
    deps.announceChange(streamChangeOf(id, 'addresses'));
    sendJson(res, 200, { streamId: id, address: given });
  });

  registerRoute(router, replaceAddressesContract, bigJson, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const { given, list } = parseAddresses(req.body);
    await withinQuotas(deps, accountOf(res).id, id, (client) => replaceStreamAddresses(client, id, list));
    deps.announceChange(streamChangeOf(id, 'addresses'));
    sendJson(res, 200, { streamId: id, address: given });
  });
}
