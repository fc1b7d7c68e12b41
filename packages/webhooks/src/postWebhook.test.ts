import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from './postWebhook.ts';

const got: { url: string; body: string; headers: IncomingHttpHeaders }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    got.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
    if (req.url === '/slow') return; // never answers
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/ok' }).end();
      return;
    }
    res.statusCode = req.url === '/fail' ? 500 : 204;
    res.end('ignored body');
  });
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const post = (path: string, opts: { timeoutMs?: number; allowPrivate?: boolean; url?: string } = {}) =>
  postWebhook({
    url: opts.url ?? `${base}${path}`,
    body: '{"a":"é"}',
    headers: { 'content-type': 'application/json', 'x-signature': '0xabc' },
    timeoutMs: opts.timeoutMs ?? 2_000,
    allowPrivate: opts.allowPrivate ?? true,
  });

describe('postWebhook', () => {
  it('sends the exact bytes and headers; any 2xx is delivered', async () => {
    expect(await post('/ok')).toMatchObject({ ok: true, statusCode: 204 });
    const last = got[got.length - 1]!;
    expect(last.body).toBe('{"a":"é"}');
    expect(last.headers['content-length']).toBe('10');
    expect(last.headers['x-signature']).toBe('0xabc');
  });

  it('reports non-2xx, redirects (not followed), timeouts, refused connections and refused URLs', async () => {
    expect(await post('/fail')).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500' });
    const before = got.length;
    expect(await post('/moved')).toMatchObject({ ok: false, statusCode: 302, error: 'HTTP 302' });
    expect(got.length).toBe(before + 1);
    expect(await post('/slow', { timeoutMs: 200 })).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'timeout after 200 ms',
    });
    expect(await post('', { url: 'http://127.0.0.1:9/h' })).toMatchObject({
      ok: false,
      error: 'ECONNREFUSED',
    });
    expect(await post('/ok', { allowPrivate: false })).toMatchObject({
      ok: false,
      error: 'refused URL: 127.0.0.1 resolves to a private address (127.0.0.1)',
    });
  });
});
