import {
  addStreamAddresses,
  getStream,
  listStreamAddresses,
  removeStreamAddresses,
  replaceStreamAddresses,
  withTransaction,
} from '@tributary/db';
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { BadRequestError, NotFoundError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { optionalString, requiredLimit } from './pageParams.ts';
import { type StreamRouteDeps, accountOf, streamIdParam } from './streamDeps.ts';
import { streamChangeOf } from '@tributary/bus';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const addressBody = z.object({ address: z.union([z.string(), z.array(z.string())]) });
const listKey = z.string().regex(/^0x[0-9a-f]{40}$/);

/** Address sets of 50,000+ entries are larger than the default body limit. */
const bigJson = express.json({ limit: '32mb' });

function parseAddresses(body: unknown): { given: string | string[]; list: string[] } {
  const parsed = addressBody.safeParse(body);
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

/** POST (add) / GET (list) / DELETE (remove) / PATCH (replace) /streams/evm/{id}/address. */
export function addAddressRoutes(router: Router, deps: StreamRouteDeps): void {
  router.post('/streams/evm/:id/address', bigJson, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const { given, list } = parseAddresses(req.body);
    await addStreamAddresses(deps.pool, id, list);
    await deps.publishChange(streamChangeOf(id, 'addresses'));
    sendJson(res, 200, { streamId: id, address: given });
  });

  router.get('/streams/evm/:id/address', async (req, res) => {
    const id = await ownStream(deps, req, res);
    const limit = requiredLimit(req);
    const binding = deps.cursors.bind('streams/evm/address', { id, limit });
    const cursor = optionalString(req, 'cursor');
    const state = cursor ? deps.cursors.decode(binding, cursor, listKey) : undefined;
    const { addresses, total } = await listStreamAddresses(deps.pool, id, limit, state?.key);
    const body: Record<string, unknown> = { result: addresses.map((address) => ({ address })), total };
    const page = state?.page ?? 0;
    const last = addresses[addresses.length - 1];
    if (last && addresses.length === limit && (page + 1) * limit < total) {
      body['cursor'] = deps.cursors.encode(binding, { page: page + 1, key: last });
    }
    sendJson(res, 200, body);
  });

  router.delete('/streams/evm/:id/address', bigJson, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const { given, list } = parseAddresses(req.body);
    await removeStreamAddresses(deps.pool, id, list);
    await deps.publishChange(streamChangeOf(id, 'addresses'));
    sendJson(res, 200, { streamId: id, address: given });
  });

  router.patch('/streams/evm/:id/address', bigJson, async (req, res) => {
    const id = await ownStream(deps, req, res);
    const { given, list } = parseAddresses(req.body);
    await withTransaction(deps.pool, async (client) => {
      await replaceStreamAddresses(client, id, list);
    });
    await deps.publishChange(streamChangeOf(id, 'addresses'));
    sendJson(res, 200, { streamId: id, address: given });
  });
}
