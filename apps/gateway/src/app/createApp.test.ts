import { createAccountWithKey, revokeApiKey } from '@tributary/db/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthedAccount } from '../auth/createAuthenticate.ts';
import { BadRequestError, NotFoundError, ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { addr, followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const TRANSFERS = `/api/v2.2/${addr('w')}/erc20/transfers`;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    bodyLimitBytes: 2048,
    // A stand-in for the stream routes: exercises the mount point, its auth and its error model.
    mountStreams(router) {
      router.get('/streams/evm/whoami', (_req, res) => {
        const account = res.locals.account as AuthedAccount;
        sendJson(res, 200, {
          id: account.id,
          name: account.name,
          secret: account.webhookSecret,
          big: 2n ** 70n,
        });
      });
      router.put('/streams/evm', (req, res) => {
        if (typeof req.body?.webhookUrl !== 'string') {
          throw new ValidationError({ webhookUrl: { message: 'webhookUrl is required' } });
        }
        sendJson(res, 200, { echoed: req.body });
      });
      router.get('/streams/evm/:id', (req) => {
        throw new NotFoundError(`Stream not found: ${req.params.id}`);
      });
      router.post('/settings', async () => {
        await Promise.resolve();
        throw new BadRequestError('secretKey must be a string');
      });
      router.get('/stats', async () => {
        throw new Error('database exploded with secrets in the message');
      });
    },
  });
  await followChains(gw.db.pool, [1]);
});

afterAll(async () => {
  await gw?.close();
});

async function json(res: Response) {
  return { status: res.status, body: await res.json() };
}

describe('authentication', () => {
  it('refuses a missing, unknown or revoked key with 401 JSON', async () => {
    expect(await json(await gw.request(TRANSFERS, { headers: { 'x-api-key': '' } }))).toEqual({
      status: 401,
      body: { message: 'Missing API key (X-API-Key header)' },
    });
    expect(await json(await fetch(`${gw.baseUrl}${TRANSFERS}`))).toEqual({
      status: 401,
      body: { message: 'Missing API key (X-API-Key header)' },
    });
    expect(
      await json(await gw.request(TRANSFERS, { headers: { 'x-api-key': 'trb_not-a-real-key' } })),
    ).toEqual({
      status: 401,
      body: { message: 'Invalid API key' },
    });
    const other = await createAccountWithKey(gw.db.pool, { accountName: 'soon-revoked' });
    expect((await gw.request(TRANSFERS, { headers: { 'x-api-key': other.key } })).status).toBe(200);
    expect(await revokeApiKey(gw.db.pool, other.prefix)).toEqual({
      outcome: 'revoked',
      prefix: other.prefix,
    });
    expect(await json(await gw.request(TRANSFERS, { headers: { 'x-api-key': other.key } }))).toEqual({
      status: 401,
      body: { message: 'API key revoked' },
    });
  });

  it('guards the stream routes too and hands them the account', async () => {
    expect((await fetch(`${gw.baseUrl}/streams/evm/whoami`)).status).toBe(401);
    const res = await gw.request('/streams/evm/whoami');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(
      JSON.stringify({ id: gw.apiKey.accountId, name: 'test', secret: gw.apiKey.webhookSecret }).replace(
        /}$/,
        ',"big":1180591620717411303424}',
      ),
    );
  });
});

describe('error model', () => {
  it('answers JSON with its length, and HEAD with the same headers and no body', async () => {
    const get = await gw.request(TRANSFERS);
    const text = await get.text();
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(get.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toMatchObject({ page: '0', total: '0', cursor: '', result: [] });
    const head = await gw.request(TRANSFERS, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('answers unknown routes with a JSON 404, with or without a key', async () => {
    expect(await json(await fetch(`${gw.baseUrl}/nope`))).toEqual({
      status: 404,
      body: { message: 'Route not found: GET /nope' },
    });
    const r = await gw.request('/api/v2.2/whatever/else');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json(r)).toEqual({
      status: 404,
      body: { message: 'Route not found: GET /api/v2.2/whatever/else' },
    });
    expect(await json(await gw.request('/streams/evm/123'))).toEqual({
      status: 404,
      body: { message: 'Stream not found: 123' },
    });
  });

  it('maps malformed JSON to 400, oversized bodies to 413 and stream validation to 422', async () => {
    const put = (body: string) =>
      gw.request('/streams/evm', { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    expect(await json(await put('{"webhookUrl":'))).toEqual({
      status: 400,
      body: { message: 'Malformed JSON body' },
    });
    expect(await json(await put(JSON.stringify({ webhookUrl: 'x'.repeat(4096) })))).toEqual({
      status: 413,
      body: { message: 'Request body too large' },
    });
    expect(await json(await put('{}'))).toEqual({
      status: 422,
      body: { message: 'Validation Failed', details: { webhookUrl: { message: 'webhookUrl is required' } } },
    });
    expect(await json(await put('{"webhookUrl":"http://127.0.0.1/hook"}'))).toEqual({
      status: 200,
      body: { echoed: { webhookUrl: 'http://127.0.0.1/hook' } },
    });
    expect(await json(await gw.request('/settings', { method: 'POST' }))).toEqual({
      status: 400,
      body: { message: 'secretKey must be a string' },
    });
  });

  it('hides internal errors behind a 500 that carries the request id', async () => {
    const res = await gw.request('/stats', { headers: { 'x-request-id': 'req-abc.123' } });
    expect(res.headers.get('x-request-id')).toBe('req-abc.123');
    expect(await json(res)).toEqual({
      status: 500,
      body: { message: 'Internal server error', requestId: 'req-abc.123' },
    });
  });

  it('gives every response a request id (a fresh one when the incoming one is unusable)', async () => {
    const res = await gw.request(TRANSFERS, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('health on the API port', () => {
  it('says only whether the gateway answers and is ready, without a key; metrics are not here', async () => {
    expect(await json(await fetch(`${gw.baseUrl}/healthz`))).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await json(await fetch(`${gw.baseUrl}/readyz`))).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await json(await fetch(`${gw.baseUrl}/metrics`))).toEqual({
      status: 404,
      body: { message: 'Route not found: GET /metrics' },
    });
    // Still recorded, for the ops port's /metrics.
    await gw.request(TRANSFERS);
    const metrics = await gw.metrics.metrics();
    expect(metrics).toMatch(
      /tributary_gateway_http_request_duration_seconds_count\{service="gateway-test",method="GET",route="\/api\/v2\.2\/:address\/erc20\/transfers",status="200"\} \d+/,
    );
    expect(metrics).toMatch(
      /tributary_gateway_http_request_duration_seconds_count\{service="gateway-test",method="GET",route="unmatched",status="404"\} \d+/,
    );
  });

  it('a dependency that fails: 503 without its error (internal addresses stay on the ops port)', async () => {
    const failing = await startTestGateway();
    try {
      failing.health.addCheck('postgres', () => {
        throw new Error('connect ECONNREFUSED 10.20.30.40:5432');
      });
      const res = await fetch(`${failing.baseUrl}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe('{"status":"fail"}');
    } finally {
      await failing.close();
    }
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a key spends its window', async () => {
    const limited = await startTestGateway({ rateLimit: { limit: 2, windowMs: 60_000 } });
    try {
      await followChains(limited.db.pool, [1]);
      expect((await limited.request(TRANSFERS)).status).toBe(200);
      expect((await limited.request(TRANSFERS)).status).toBe(200);
      const res = await limited.request(TRANSFERS);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(await res.json()).toEqual({ message: 'Too many requests: rate limit exceeded' });
      // Per key: another key of the same account has its own budget.
      const second = await createAccountWithKey(limited.db.pool, { accountName: 'test' });
      expect((await limited.request(TRANSFERS, { headers: { 'x-api-key': second.key } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
