import { randomUUID } from 'node:crypto';
import { createStreamBackfill, insertDelivery } from '@tributary/db/streams';
import { erc20TransferEventAbi } from '@tributary/evm';
import { errorBody } from '@tributary/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRANSFER_TOPIC,
  addr,
  followChains,
  insertBlocks,
  insertLogs,
  insertToken,
  insertTransfers,
  setBalance,
} from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';
import type { OpenApiDocument, OpenApiOperation } from './buildOpenApiDocument.ts';
import { ROUTE_CONTRACTS } from './routeContracts.ts';

// Requests made from the served document (its paths, its parameters and their examples) against a
// gateway over real PostgreSQL: every answer has a documented status and the documented body.

const EXAMPLE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const OTHER = addr('conformance-other');

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
let doc: OpenApiDocument;
/** Path parameter values that the examples cannot give: ids of rows this test made. */
const ids: Record<string, string> = {};
let doomedStreamId: string;

const streamBody = () => ({
  webhookUrl: receiver.url,
  description: 'conformance',
  tag: 'conformance',
  chainIds: ['0x7a69'],
  includeContractLogs: true,
  topic0: ['Transfer(address,address,uint256)'],
  abi: [erc20TransferEventAbi],
});

/** A body each operation accepts, by `METHOD path`. */
const validBodies: Record<string, () => unknown> = {
  'PUT /streams/evm': streamBody,
  'POST /streams/evm/{id}': () => ({ description: 'renamed' }),
  'DELETE /streams/evm/{id}': () => ({}),
  'POST /streams/evm/{id}/status': () => ({ status: 'paused' }),
  'POST /streams/evm/{id}/address': () => ({ address: [OTHER] }),
  'DELETE /streams/evm/{id}/address': () => ({ address: OTHER }),
  'PATCH /streams/evm/{id}/address': () => ({ address: [OTHER, EXAMPLE] }),
  'POST /history/replay/{streamId}/{id}': () => ({}),
  'POST /settings': () => ({ secretKey: 'conformance-secret-0123456789abcdef' }),
  'POST /streams/evm/{id}/backfill': () => ({ chainId: '0x7a69', fromBlock: 0, toBlock: 0, dryRun: true }),
};

beforeAll(async () => {
  gw = await startTestGateway({ streams: true });
  receiver = await startTestReceiver();
  const pool = gw.db.pool;
  await followChains(pool, [1, 31337]);
  await insertBlocks(pool, 1, [1, 2, 3]);
  await insertToken(pool, {
    chainId: 1,
    address: EXAMPLE,
    name: 'T',
    symbol: 'T',
    decimals: 18,
    totalSupply: 10n,
  });
  await insertTransfers(
    pool,
    [1, 2, 3].map((block) => ({
      chainId: 1,
      block,
      logIndex: 0,
      token: EXAMPLE,
      from: EXAMPLE,
      to: OTHER,
      value: 1n,
    })),
  );
  await insertLogs(
    pool,
    [1, 2].map((block) => ({
      chainId: 1,
      block,
      logIndex: 1,
      address: EXAMPLE,
      topics: [TRANSFER_TOPIC],
      data: '0x01',
    })),
  );
  await setBalance(pool, { chainId: 1, token: EXAMPLE, owner: OTHER, balance: 7n });

  const create = async () => {
    const res = await gw.request('/streams/evm', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(streamBody()),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const streamId = await create();
  doomedStreamId = await create();
  const delivery = await insertDelivery(pool, {
    id: randomUUID(),
    streamId,
    chainId: 31337,
    blockNumber: 5,
    blockHash: `0x${'5'.repeat(64)}`,
    blockTimestamp: 1,
    confirmed: false,
    body: JSON.stringify({
      confirmed: false,
      chainId: '0x7a69',
      abi: [],
      streamId,
      tag: 'conformance',
      retries: 0,
      block: { number: '5', hash: `0x${'5'.repeat(64)}`, timestamp: '1' },
      logs: [],
      txs: [],
      txsInternal: [],
      erc20Transfers: [],
      erc20Approvals: [],
      nftTransfers: [],
      nftApprovals: { ERC721: [], ERC1155: [] },
      nftTokenApprovals: [],
      nativeBalances: [],
    }),
    status: 'pending',
    logsCount: 0,
    txsCount: 0,
  });
  await pool.query(`UPDATE deliveries SET status = 'failed', attempts = 8 WHERE id = $1`, [delivery.id]);
  const backfill = await createStreamBackfill(pool, {
    accountId: gw.apiKey.accountId,
    streamId,
    chainId: 31337,
    fromBlock: 0,
    toBlock: 0,
    dryRun: true,
  });
  ids['backfillId'] = backfill?.id ?? '';
  ids['streamId'] = streamId;
  ids['delivery'] = delivery.id;
  doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

interface Operation {
  name: string;
  method: string;
  path: string;
  op: OpenApiOperation;
}

function operations(): Operation[] {
  return Object.entries(doc.paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        name: `${method.toUpperCase()} ${path}`,
        method,
        path,
        op,
      })),
    )
    .sort(
      (a, b) => Number(a.name === 'DELETE /streams/evm/{id}') - Number(b.name === 'DELETE /streams/evm/{id}'),
    );
}

function pathValue(operation: Operation, name: string): string {
  if (operation.path.startsWith('/history/replay') && name === 'id') return ids['delivery'] ?? '';
  if (operation.name === 'DELETE /streams/evm/{id}') return doomedStreamId;
  if (name === 'id' || name === 'streamId') return ids['streamId'] ?? '';
  if (name === 'backfillId') return ids['backfillId'] ?? '';
  const example = operation.op.parameters.find((p) => p.name === name)?.schema['example'];
  return String(example);
}

/** The path with its parameters, and the query of the required parameters (their examples). */
function validRequest(
  operation: Operation,
  query: [string, string][] = [],
  path: Record<string, string> = {},
) {
  const url = operation.path.replace(
    /\{(\w+)\}/g,
    (_m, name: string) => path[name] ?? pathValue(operation, name),
  );
  const search = new URLSearchParams();
  for (const p of operation.op.parameters) {
    if (p.in === 'query' && p.required && !query.some(([n]) => n === p.name))
      search.append(p.name, String(p.schema['example']));
  }
  for (const [n, v] of query) search.append(n, v);
  const qs = search.toString();
  return `${url}${qs ? `?${qs}` : ''}`;
}

const seen = new Map<string, Set<number>>();

/** Sends, then checks the answer against the document: status documented, body of the documented shape. */
async function send(
  operation: Operation,
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown }> {
  const body = validBodies[operation.name];
  const res = await gw.request(url, {
    method: operation.method.toUpperCase(),
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) } : {}),
    ...init,
  });
  const json: unknown = await res.json();
  const where = `${operation.name} ${url} -> ${res.status} ${JSON.stringify(json).slice(0, 300)}`;
  expect(Object.keys(operation.op.responses), where).toContain(String(res.status));
  expect(res.status, where).toBeLessThan(500);
  const contract = ROUTE_CONTRACTS.find(
    (c) =>
      c.method === operation.method && `${c.mount}${c.path}`.replace(/:(\w+)/g, '{$1}') === operation.path,
  );
  const schema = contract?.responses[res.status]?.schema ?? errorBody;
  const parsed = schema.safeParse(json);
  expect(parsed.error?.issues, where).toBeUndefined();
  // Parsing drops members the schema does not name: an undocumented member would be missing here.
  expect(parsed.data, where).toEqual(json);
  const statuses = seen.get(operation.name) ?? new Set();
  statuses.add(res.status);
  seen.set(operation.name, statuses);
  return { status: res.status, body: json };
}

describe('answers against the served document', () => {
  it('answers a request built from the examples with 200 and the documented body', async () => {
    for (const operation of operations()) {
      const { status, body } = await send(operation, validRequest(operation));
      expect(status, operation.name).toBe(200);
      if (operation.path.startsWith('/api/v2.2'))
        expect((body as { result: unknown[] }).result.length, operation.name).toBeGreaterThan(0);
    }
  });

  it('answers every route 401 without a key', async () => {
    for (const operation of operations()) {
      const { status } = await send(operation, validRequest(operation), { headers: { 'x-api-key': '' } });
      expect(status, operation.name).toBe(401);
    }
  });

  it('reads every documented query parameter: one given twice, or not of its pattern, is a 400 naming it', async () => {
    for (const operation of operations()) {
      for (const p of operation.op.parameters.filter((x) => x.in === 'query')) {
        const example = String(p.schema['example'] ?? 'x');
        const twice: [string, string][] =
          p.schema['type'] === 'array'
            ? [[`${p.name}[a]`, EXAMPLE]]
            : [
                [p.name, example],
                [p.name, example],
              ];
        const { status, body } = await send(operation, validRequest(operation, twice));
        expect(status, `${operation.name} ${p.name}`).toBe(400);
        expect((body as { message: string }).message, `${operation.name} ${p.name}`).toContain(p.name);
        if (typeof p.schema['pattern'] === 'string') {
          const bad = await send(operation, validRequest(operation, [[p.name, 'zz']]));
          expect(bad.status, `${operation.name} ${p.name}=zz`).toBe(400);
        }
      }
    }
  });

  it('answers a documented status for a path parameter that cannot be used', async () => {
    for (const operation of operations()) {
      for (const p of operation.op.parameters.filter((x) => x.in === 'path')) {
        const { status } = await send(operation, validRequest(operation, [], { [p.name]: 'zz' }));
        expect([400, 404], `${operation.name} ${p.name}`).toContain(status);
        const unknown = await send(operation, validRequest(operation, [], { [p.name]: randomUUID() }));
        expect([400, 404], `${operation.name} ${p.name}`).toContain(unknown.status);
      }
    }
  });

  it('answers a documented status for a body that is not JSON, or not of the documented shape', async () => {
    for (const operation of operations().filter((o) => o.method !== 'get')) {
      const headers = { 'content-type': 'application/json' };
      const malformed = await send(operation, validRequest(operation), { headers, body: '{"a":' });
      expect(malformed.status, operation.name).toBe(400);
      if (operation.op.requestBody) {
        const wrong = await send(operation, validRequest(operation), {
          headers,
          body: '{"webhookUrl":1,"status":2,"address":3,"secretKey":4}',
        });
        expect([400, 422], operation.name).toContain(wrong.status);
      }
    }
  });

  it('saw on each route at least its success, 401 and one refusal of its own', () => {
    for (const operation of operations()) {
      const statuses = seen.get(operation.name) ?? new Set();
      expect([...statuses], operation.name).toEqual(expect.arrayContaining([200, 401]));
      if (operation.op.parameters.length > 0 || operation.op.requestBody)
        expect(
          [...statuses].some((s) => s >= 400 && s !== 401),
          operation.name,
        ).toBe(true);
    }
  });
});
