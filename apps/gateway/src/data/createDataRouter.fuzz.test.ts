import fc from 'fast-check';
import type { OpenApiDocument } from '../openapi/buildOpenApiDocument.ts';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertWellFormed } from '../testing/answerProblems.ts';
import {
  TRANSFER_TOPIC,
  addr,
  insertBlocks,
  insertLogs,
  insertToken,
  insertTransfers,
  setBalance,
} from '../testing/chainFixtures.ts';
import {
  type Fitting,
  documentOperations,
  requestFor,
  undocumentedStatus,
} from '../testing/documentRequests.ts';
import { fetchAnswer } from '../testing/fetchAnswer.ts';
import { fuzzParameters } from '../testing/fuzzParameters.ts';
import { bodyText, extraHeaders, queryFor, segment } from '../testing/hostileInputs.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

// Hostile requests to the data interface: whatever comes in, the answer is a well-formed JSON
// 2xx or 4xx within the timeout (see answerProblems), never a 5xx, a hang, HTML or a stack trace.
// The routes and their parameters come from the served OpenAPI document, and a request that reaches
// a route gets one of the statuses the document gives it.

const CHAIN = 1;
const TOKEN = addr('fuzz-token');
const WALLET = addr('fuzz-wallet');
const OTHER = addr('fuzz-other');

let gw: TestGateway;
/** The document the gateway serves: the routes and parameters to fuzz. */
let doc: OpenApiDocument;

beforeAll(async () => {
  gw = await startTestGateway();
  doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  const pool = gw.db.pool;
  // A little data on eth (the default chain) so that pages, cursors and totals are reached.
  await insertBlocks(pool, CHAIN, [1, 2, 3, 4, 5]);
  await insertToken(pool, {
    chainId: CHAIN,
    address: TOKEN,
    name: 'T',
    symbol: 'T',
    decimals: 18,
    totalSupply: 10n,
  });
  await insertTransfers(
    pool,
    [1, 2, 3, 4, 5].map((block) => ({
      chainId: CHAIN,
      block,
      logIndex: 0,
      token: TOKEN,
      from: WALLET,
      to: OTHER,
      value: 1n,
    })),
  );
  await insertLogs(
    pool,
    [1, 2, 3].map((block) => ({
      chainId: CHAIN,
      block,
      logIndex: 1,
      address: TOKEN,
      topics: [TRANSFER_TOPIC],
      data: '0x01',
    })),
  );
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: OTHER, balance: 5n });
});

afterAll(async () => {
  await gw?.close();
});

const ADDRESSES = [WALLET, TOKEN, OTHER, WALLET.toUpperCase().replace('0X', '0x')];
const CHAINS = ['eth', '0x1', 'ETH', 'devnet', 'polygon'];
const BLOCKS = ['0', '1', '3', '5', '1000000'];
const DATES = ['2024-01-01T00:00:00Z', '1704067200', 'Mon, 01 Jan 2024 00:00:00 GMT', '2030-01-01'];

/** Every data route of the served document, its parameters fitting or hostile. */
function dataRequest(doc: OpenApiDocument, cursors: string[]) {
  const fitting: Fitting = {
    address: ADDRESSES,
    token_address: ADDRESSES,
    chain: CHAINS,
    limit: ['1', '2', '100'],
    cursor: ['', '', '', ...cursors],
    order: ['ASC', 'DESC', 'asc'],
    from_block: BLOCKS,
    to_block: BLOCKS,
    block_number: BLOCKS,
    from_date: DATES,
    to_date: DATES,
    contract_addresses: [TOKEN, OTHER],
    topic0: [TRANSFER_TOPIC, TRANSFER_TOPIC.toUpperCase().replace('0X', '0x')],
  };
  // Parameters no data route reads: they are ignored.
  const unknown = {
    format: ['decimal'],
    topic1: [TRANSFER_TOPIC],
    topic2: [TRANSFER_TOPIC],
    topic3: [TRANSFER_TOPIC],
  };
  const routes = documentOperations(doc, (path) => path.startsWith('/api/v2.2/')).map((op) =>
    requestFor(op, fitting, unknown).map((path) => ({ route: op.name as string | undefined, path })),
  );
  const paging = {
    chain: CHAINS,
    limit: ['1', '2', '100'],
    cursor: ['', '', '', ...cursors],
    order: ['ASC', 'DESC', 'asc'],
  };
  const elsewhere = fc
    .tuple(
      fc.array(segment(['erc20', 'logs', 'owners', 'transfers', WALLET, '..', '.', '']), { maxLength: 6 }),
      queryFor(paging),
    )
    .map(([s, q]) => ({
      route: undefined as string | undefined,
      path: `/api/v2.2/${s.join('/')}${q}`,
    }));
  return fc.oneof(...routes.map((arbitrary) => ({ arbitrary, weight: 3 })), {
    arbitrary: elsewhere,
    weight: 1,
  });
}

/** Real cursors of each route (and tampered copies), so that cursor decoding is reached. */
async function realCursors(): Promise<string[]> {
  const paths = [
    `/api/v2.2/${WALLET}/erc20/transfers?limit=1`,
    `/api/v2.2/erc20/${TOKEN}/owners?limit=1`,
    `/api/v2.2/${TOKEN}/logs?limit=1&topic0=${TRANSFER_TOPIC}`,
  ];
  const cursors: string[] = [];
  for (const path of paths) {
    const body = (await (await gw.request(path)).json()) as { cursor?: string };
    if (body.cursor) cursors.push(body.cursor, body.cursor, `${body.cursor.slice(0, -2)}AA`);
  }
  return cursors.length > 0 ? cursors : ['none'];
}

/** Mostly the valid key, so that requests reach the handlers; sometimes a missing or odd one. */
function apiKey(valid: string) {
  return fc.oneof(
    { arbitrary: fc.constant<string | undefined>(valid), weight: 18 },
    {
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        '',
        ' ',
        'trb_bogus',
        `${valid}x`,
        valid.slice(0, 10),
        'k'.repeat(5_000),
      ),
      weight: 2,
    },
  );
}

describe('the data interface under hostile input', () => {
  it('answers every GET (and HEAD) with well-formed JSON, whatever the path, query and headers', async () => {
    const requests = dataRequest(doc, await realCursors());
    const method = fc.constantFrom('GET', 'GET', 'GET', 'HEAD');
    await fc.assert(
      fc.asyncProperty(
        method,
        requests,
        apiKey(gw.apiKey.key),
        extraHeaders,
        async (m, { route, path }, key, extra) => {
          const headers: Record<string, string> = { ...extra };
          if (key !== undefined) headers['x-api-key'] = key;
          const url = `${gw.baseUrl}${path}`;
          // A HEAD answer has the headers of its GET and no body.
          const answer = await fetchAnswer(url, { method: m, headers });
          assertWellFormed(`${m} ${url} ${JSON.stringify(headers)}`, answer, { expectBody: m === 'GET' });
          const op = documentOperations(doc, (p) => p.startsWith('/api/v2.2/')).find((o) => o.name === route);
          const undocumented = op && undocumentedStatus(op, url, answer);
          if (undocumented) throw new Error(`${m} ${url}: ${undocumented}`);
          if (m === 'HEAD' && answer && !answer.contentType?.startsWith('application/json'))
            throw new Error(`HEAD ${url} answered ${answer.status} with content-type ${answer.contentType}`);
        },
      ),
      fuzzParameters(300),
    );
  });

  it('answers other methods, with any body, with well-formed JSON', async () => {
    const body = bodyText({ address: [WALLET], chain: ['eth'], limit: [1] }, { address: WALLET });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
        dataRequest(doc, ['none']).map((r) => r.path),
        body,
        extraHeaders,
        async (method, pathAndQuery, text, extra) => {
          const url = `${gw.baseUrl}${pathAndQuery}`;
          const headers = { 'content-type': 'application/json', ...extra, 'x-api-key': gw.apiKey.key };
          assertWellFormed(
            `${method} ${url} ${JSON.stringify(extra)} ${text.slice(0, 200)}`,
            await fetchAnswer(url, { method, headers, body: text }),
          );
        },
      ),
      fuzzParameters(150),
    );
  });
});
