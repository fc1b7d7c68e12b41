import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ streams: true });
});

afterAll(async () => {
  await gw?.close();
});

async function answer(path: string, init?: RequestInit) {
  const res = await gw.request(path, init);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

const MALFORMED = {
  status: 400,
  type: 'application/json; charset=utf-8',
  body: { message: 'Malformed percent-encoding in the request path' },
};

describe('a path parameter with a malformed percent-encoding', () => {
  it.each([
    '/api/v2.2/%ZZ/erc20/transfers',
    '/api/v2.2/erc20/%/owners',
    '/api/v2.2/%E0%A4%A/logs?chain=eth',
    '/streams/evm/%ZZ',
    '/streams/evm/%ZZ/address?limit=5',
    '/stats/%ZZ',
    // A UTF-16 surrogate is not UTF-8: decodeURIComponent refuses it like a bad hex digit.
    '/stats/%ED%A0%80',
  ])('GET %s is a 400 naming the cause', async (path) => {
    expect(await answer(path)).toEqual(MALFORMED);
  });

  it('is a 400 for every method of a route with parameters', async () => {
    expect(await answer('/streams/evm/%ZZ', { method: 'POST', body: '{}' })).toEqual(MALFORMED);
    expect(await answer('/streams/evm/%ZZ/status', { method: 'POST' })).toEqual(MALFORMED);
    expect(await answer('/history/replay/%ZZ/1', { method: 'POST' })).toEqual(MALFORMED);
  });

  it('is still asked for a key first', async () => {
    expect(await answer('/stats/%ZZ', { headers: { 'x-api-key': '' } })).toEqual({
      status: 401,
      type: 'application/json; charset=utf-8',
      body: { message: 'Missing API key (X-API-Key header)' },
    });
  });
});

describe('a body that is not what its content-encoding says', () => {
  it.each(['gzip', 'deflate', 'br'])('is a 400 for %s (zlib refuses it)', async (encoding) => {
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body: '{"secretKey":"secret-key-123"}',
    };
    expect(await answer('/settings', init)).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: { message: 'Request body does not match its content-encoding' },
    });
  });
});
