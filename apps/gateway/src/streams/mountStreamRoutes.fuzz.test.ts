import { randomUUID } from 'node:crypto';
import { createAccountWithKey } from '@tributary/db/accounts';
import { insertDelivery } from '@tributary/db/streams';
import { erc20TransferEventAbi } from '@tributary/evm';
import { TEST_WEBHOOK_BODY } from '@tributary/webhooks';
import fc from 'fast-check';
import type { OpenApiDocument } from '../openapi/buildOpenApiDocument.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertWellFormed } from '../testing/answerProblems.ts';
import {
  type Fitting,
  documentOperations,
  requestFor,
  undocumentedStatus,
} from '../testing/documentRequests.ts';
import { fetchAnswer } from '../testing/fetchAnswer.ts';
import { fuzzParameters } from '../testing/fuzzParameters.ts';
import { bodyText, extraHeaders, segment } from '../testing/hostileInputs.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

// Hostile requests to the stream interface, behind a valid key: whatever the method, path, query,
// headers and body, the answer is a well-formed JSON 2xx or 4xx within the timeout (see
// answerProblems), never a 5xx, a hang, HTML or a stack trace. The routes and their parameters come
// from the served OpenAPI document, and a request that reaches a route gets a status it documents.

const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TRANSFER = 'Transfer(address,address,uint256)';

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
/** Streams of the test account (the first is never deleted), one of another account, a delivery. */
let own: string[];
let doomed: string[];
let foreign: string;
let delivery: string;
/** The document the gateway serves: the routes and parameters to fuzz. */
let doc: OpenApiDocument;

function streamBody(overrides: Record<string, unknown> = {}) {
  return {
    webhookUrl: receiver.url,
    description: 'fuzz',
    tag: 'fuzz',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    topic0: [TRANSFER],
    abi: [erc20TransferEventAbi],
    ...overrides,
  };
}

async function createStream(key = gw.apiKey.key): Promise<string> {
  const res = await gw.request('/streams/evm', {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(streamBody()),
  });
  const body = (await res.json()) as { id: string };
  expect(res.status).toBe(200);
  return body.id;
}

beforeAll(async () => {
  receiver = await startTestReceiver();
  gw = await startTestGateway({ streams: true });
  own = [await createStream(), await createStream()];
  doomed = [await createStream(), await createStream()];
  const other = await createAccountWithKey(gw.db.pool, { accountName: 'other' });
  foreign = await createStream(other.key);
  const body = JSON.stringify({ ...(JSON.parse(TEST_WEBHOOK_BODY) as object), streamId: own[0] });
  const d = await insertDelivery(gw.db.pool, {
    id: randomUUID(),
    streamId: own[0] as string,
    chainId: 31337,
    blockNumber: 5,
    blockHash: `0x${'5'.repeat(64)}`,
    blockTimestamp: 1,
    confirmed: false,
    body,
    status: 'pending',
    logsCount: 0,
    txsCount: 0,
  });
  delivery = d.id;
  doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  await gw.db.pool.query(`UPDATE deliveries SET status = 'failed', attempts = 8 WHERE id = $1`, [delivery]);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

/** A deeply nested filter and ABI (recursive validators), as text: too deep to JSON.stringify. */
const deepFilter = fc
  .integer({ min: 100, max: 20_000 })
  .map(
    (n) =>
      `[{"topic0":"${TRANSFER}","filter":${'{"and":['.repeat(n)}{"eq":["from","${ADDRESS}"]}${']}'.repeat(n)}}]`,
  );
const deepAbi = fc
  .integer({ min: 100, max: 20_000 })
  .map(
    (n) =>
      `[{"type":"event","name":"Transfer","inputs":[${'{"type":"tuple","name":"t","components":['.repeat(n)}{"type":"uint256","name":"v"}${']}'.repeat(n)}]}]`,
  );

function streamFields() {
  return {
    webhookUrl: fc.constantFrom(
      ...[
        receiver.url,
        receiver.url,
        'http://127.0.0.1:1/refused',
        'not a url',
        'ftp://127.0.0.1/x',
        'http://[::1',
      ].map((u) => JSON.stringify(u)),
    ),
    description: ['fuzz', '', 'd'.repeat(2_000)],
    tag: ['fuzz', ''],
    chainIds: [['0x7a69'], ['0x1', '0x89'], [], ['0xzz'], ['eth'], '0x1'],
    includeContractLogs: [true, false, 'true', 1],
    includeNativeTxs: [true, false],
    includeInternalTxs: [true, false],
    includeAllTxLogs: [true, false],
    allAddresses: [true, false],
    demo: [true],
    topic0: [
      [TRANSFER],
      [],
      ['Transfer(address'],
      ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'],
    ],
    abi: fc.oneof(
      {
        arbitrary: fc.constantFrom(...[[erc20TransferEventAbi], [], [{}], 'x'].map((v) => JSON.stringify(v))),
        weight: 8,
      },
      { arbitrary: deepAbi, weight: 1 },
    ),
    advancedOptions: fc.oneof(
      {
        arbitrary: fc.constantFrom(
          ...[
            [{ topic0: TRANSFER, filter: { eq: ['from', ADDRESS] }, includeNativeTxs: true }],
            [{ topic0: TRANSFER, filter: { gt: ['value', '1000'] } }],
            [{ topic0: 'x' }],
            [{ topic0: TRANSFER, filter: { nope: [] } }],
          ].map((v) => JSON.stringify(v)),
        ),
        weight: 8,
      },
      { arbitrary: deepFilter, weight: 1 },
    ),
    getNativeBalances: [[], [{ selectors: ['$from'], type: 'tx' }], [{ selectors: 1 }]],
    triggers: [
      [],
      [
        {
          type: 'erc20transfer',
          contractAddress: '$contract',
          functionAbi: {
            type: 'function',
            name: 'balanceOf',
            inputs: [{ name: 'a', type: 'address' }],
            outputs: [],
          },
          inputs: ['$from'],
        },
      ],
      [{}],
    ],
  };
}

/** Every route of the stream interface with fitting or hostile parameters and bodies. */
function streamRequest() {
  const ids = [...own, foreign, (own[0] as string).toUpperCase()];
  const anyIds = segment([...own, ...doomed, foreign]);
  const fitting: Fitting = {
    id: ids,
    streamId: ids,
    'DELETE /streams/evm/{id} id': [...doomed, foreign],
    'POST /history/replay/{streamId}/{id} id': [delivery, delivery.toUpperCase()],
    limit: ['1', '10', '100'],
    cursor: ['', 'eyJ2IjoxfQ.c2ln'],
    excludePayload: ['true', 'false'],
  };
  const fields = streamFields();
  const stream = bodyText(fields, streamBody());
  const status = bodyText({ status: ['active', 'paused', 'error', 'terminated', ''] }, { status: 'paused' });
  const address = bodyText(
    {
      address: [ADDRESS, [ADDRESS, ADDRESS.toUpperCase().replace('0X', '0x')], [], 'nope', [1]],
    },
    { address: [ADDRESS] },
  );
  const settings = bodyText(
    { secretKey: ['secret-key-0123456789-abcdefghijk', 'secret-key-123', 'k'.repeat(300)] },
    { secretKey: 'secret-key-0123456789-abcdefghijk' },
  );
  const noBody = fc.constant<string | undefined>(undefined);
  /** Bodies by operation; a route not named here gets any of them, or none. */
  const bodies: Record<string, fc.Arbitrary<string | undefined>> = {
    'PUT /streams/evm': stream,
    'POST /streams/evm/{id}': stream,
    'DELETE /streams/evm/{id}': fc.option(stream, { nil: undefined }),
    'POST /streams/evm/{id}/status': status,
    'POST /streams/evm/{id}/address': address,
    'DELETE /streams/evm/{id}/address': address,
    'PATCH /streams/evm/{id}/address': address,
    'POST /history/replay/{streamId}/{id}': fc.option(stream, { nil: undefined }),
    'POST /settings': settings,
  };
  const anyBody = fc.oneof(stream, status, address, settings, noBody);
  const req = (
    method: fc.Arbitrary<string>,
    path: fc.Arbitrary<string>,
    body: fc.Arbitrary<string | undefined>,
    route?: string,
  ) => fc.record({ method, path, body, route: fc.constant(route) });
  const routes = documentOperations(doc, (path) => !path.startsWith('/api/v2.2/')).map((op) =>
    req(
      fc.constant(op.method),
      requestFor(op, fitting),
      bodies[op.name] ?? (op.method === 'GET' ? noBody : anyBody),
      op.name,
    ),
  );
  return fc.oneof(
    ...routes,
    // Any method on any of these paths, with any of the bodies (method mismatches, stray bodies).
    req(
      fc.constantFrom('GET', 'PUT', 'POST', 'PATCH', 'DELETE'),
      fc.oneof(
        fc.constantFrom('/streams/evm', '/history', '/stats', '/settings', '/streams', '/streams/evm/'),
        anyIds.map((id) => `/streams/evm/${id}/status`),
        fc.tuple(anyIds, anyIds).map(([a, b]) => `/history/replay/${a}/${b}`),
        fc
          .array(segment(['streams', 'evm', 'address', 'status', 'history', 'replay', 'stats', ...doomed]), {
            maxLength: 5,
          })
          .map((s) => `/${s.join('/')}`),
      ),
      anyBody,
    ),
  );
}

describe('the stream interface under hostile input', () => {
  it('answers every request with well-formed JSON, whatever the route, query, headers and body', async () => {
    const operations = documentOperations(doc, () => true);
    await fc.assert(
      fc.asyncProperty(streamRequest(), extraHeaders, async ({ method, path, body, route }, extra) => {
        const url = `${gw.baseUrl}${path}`;
        const headers = { 'content-type': 'application/json', ...extra, 'x-api-key': gw.apiKey.key };
        const sent = method === 'GET' ? undefined : body;
        const what = `${method} ${url} ${JSON.stringify(extra)} ${sent?.slice(0, 300) ?? ''}`;
        const answer = await fetchAnswer(url, {
          method,
          headers,
          ...(sent === undefined ? {} : { body: sent }),
        });
        assertWellFormed(what, answer);
        const op = operations.find((o) => o.name === route);
        const undocumented = op && undocumentedStatus(op, url, answer);
        if (undocumented) throw new Error(`${what.slice(0, 500)}: ${undocumented}`);
      }),
      fuzzParameters(1_000),
    );
  });

  it('still serves the account afterwards', async () => {
    const res = await gw.request(`/streams/evm/${own[0]}`);
    expect({ status: res.status, id: ((await res.json()) as { id: string }).id }).toEqual({
      status: 200,
      id: own[0],
    });
  });
});
