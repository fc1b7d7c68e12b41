import type { LookupAddress } from 'node:dns';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import { type AddressInfo, type Socket, createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolveHost } from './createWebhookLookup.ts';
import { createWebhookPoster } from './createWebhookPoster.ts';
import type { WebhookPolicy } from './webhookPolicy.ts';

const got: { url: string; body: string; headers: IncomingHttpHeaders }[] = [];
/** Answers that never end, each settled once its connection closes. */
const floods: Promise<void>[] = [];
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
    if (req.url === '/flood') {
      // An answer that never ends: 64 KiB chunks for as long as the connection is open.
      const flood = { closed: false };
      floods.push(
        new Promise<void>((r) =>
          res.on('close', () => {
            flood.closed = true;
            r();
          }),
        ),
      );
      const chunk = Buffer.alloc(65_536, 'x');
      const push = () => {
        while (!flood.closed && res.write(chunk));
        if (!flood.closed) res.once('drain', push);
      };
      res.writeHead(200);
      push();
      return;
    }
    res.statusCode = req.url === '/fail' ? 500 : 204;
    res.end('ignored body');
  });
});
// Takes connections and never says a word: a TLS handshake to it never ends.
const held: Socket[] = [];
const silent = createTcpServer((socket) => held.push(socket));
let port = 0;
let silentPort = 0;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  silentPort = (silent.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  for (const s of held) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => silent.close(() => r()));
});

const policy = (p: Partial<WebhookPolicy> = {}): WebhookPolicy => ({
  allowPrivate: true,
  requireHttps: false,
  allowedPorts: [],
  ...p,
});

/** A resolver that gives its answers in turn, the last one from then on. */
function answering(...answers: string[][]): ResolveHost & { calls: number } {
  const resolve = async () => {
    const answer = answers[Math.min(resolve.calls, answers.length - 1)] ?? [];
    resolve.calls++;
    return answer.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  resolve.calls = 0;
  return resolve;
}

const send = (poster: ReturnType<typeof createWebhookPoster>, url: string, timeoutMs = 2_000) =>
  poster.post({
    url,
    body: '{"a":"é"}',
    headers: { 'content-type': 'application/json', 'x-signature': '0xabc' },
    timeoutMs,
  });

describe('createWebhookPoster', () => {
  const poster = createWebhookPoster({ policy: policy() });
  afterAll(() => poster.close());
  const base = () => `http://127.0.0.1:${port}`;

  it('sends the exact bytes and headers; any 2xx is delivered', async () => {
    expect(await send(poster, `${base()}/ok`)).toMatchObject({ ok: true, statusCode: 204 });
    const last = got[got.length - 1]!;
    expect(last.body).toBe('{"a":"é"}');
    expect(last.headers['content-length']).toBe('10');
    expect(last.headers['x-signature']).toBe('0xabc');
  });

  it('reports non-2xx, redirects (not followed), timeouts and refused connections', async () => {
    expect(await send(poster, `${base()}/fail`)).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500',
    });
    const before = got.length;
    expect(await send(poster, `${base()}/moved`)).toMatchObject({
      ok: false,
      statusCode: 302,
      error: 'HTTP 302',
    });
    expect(got.length).toBe(before + 1);
    expect(await send(poster, `${base()}/slow`, 200)).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'timeout after 200 ms',
      refused: null,
    });
    expect(await send(poster, 'http://127.0.0.1:9/h')).toMatchObject({ ok: false, error: 'ECONNREFUSED' });
  });

  it('reads an answer up to the cap, then closes the connection; the status still counts', async () => {
    expect(await send(poster, `${base()}/flood`, 30_000)).toMatchObject({ ok: true, statusCode: 200 });
    // The receiver sees its connection closed (the test times out should it stay open).
    await floods.at(-1);
  });

  it('bounds the TLS handshake apart from the whole exchange', async () => {
    const tls = createWebhookPoster({ policy: policy(), tlsHandshakeTimeoutMs: 100 });
    expect(await send(tls, `https://127.0.0.1:${silentPort}/h`, 30_000)).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'TLS handshake timeout after 100 ms',
    });
    tls.close();
  });
});

describe('what the policy refuses, nothing sent', () => {
  it('refuses a refused address literal, and http: or a port the operator does not allow', async () => {
    const cases: [Partial<WebhookPolicy>, string][] = [
      [{ allowPrivate: false }, 'the address is not allowed'],
      [{ requireHttps: true }, 'https is required'],
      [{ allowedPorts: [443, 8443] }, 'the port is not allowed'],
    ];
    for (const [p, reason] of cases) {
      const poster = createWebhookPoster({ policy: policy(p) });
      const before = got.length;
      expect(await send(poster, `http://127.0.0.1:${port}/ok`)).toEqual({
        ok: false,
        statusCode: null,
        latencyMs: 0,
        error: `refused: ${reason}`,
        refused: reason,
      });
      expect(got.length).toBe(before);
      poster.close();
    }
  });

  it('checks the address connected to: a name that resolved public and now answers 127.0.0.1 never reaches it', async () => {
    const resolve = answering(['93.184.215.14'], ['127.0.0.1']);
    // What a check ahead of the connection would have been told.
    expect(await resolve('hooks.example', { family: 0 })).toEqual([{ address: '93.184.215.14', family: 4 }]);
    const poster = createWebhookPoster({ policy: policy({ allowPrivate: false }), resolve });
    const before = got.length;
    const result = await send(poster, `http://hooks.example:${port}/ok`);
    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'refused: the address is not allowed',
      refused: 'the address is not allowed',
    });
    expect(JSON.stringify(result)).not.toContain('127.0.0.1');
    expect(resolve.calls).toBe(2);
    expect(got.length).toBe(before);
    poster.close();
    // The same name and resolver reach the receiver when the operator allows private addresses.
    const allowing = createWebhookPoster({ policy: policy(), resolve });
    expect(await send(allowing, `http://hooks.example:${port}/ok`)).toMatchObject({
      ok: true,
      statusCode: 204,
    });
    expect(got.length).toBe(before + 1);
    allowing.close();
  });

  it('refuses names whose answers hide a refused IPv4 address in IPv6, and Teredo', async () => {
    for (const answer of [
      ['::ffff:127.0.0.1'],
      ['64:ff9b::7f00:1'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ]) {
      const poster = createWebhookPoster({
        policy: policy({ allowPrivate: false }),
        resolve: answering(answer),
      });
      expect(await send(poster, `http://hooks.example:${port}/ok`), answer[0]).toMatchObject({
        refused: 'the address is not allowed',
      });
      poster.close();
    }
  });
});

/**
 * A receiver that answers `answered` requests on each connection, then resets it when the next
 * one arrives, as a server closing a connection it counts idle does to a request racing that close.
 * `resetAfterMs` puts the reset off; `laterAnswerAfterMs` puts off every answer on connections
 * after the first.
 */
async function resettingReceiver(
  answered: number,
  delays: { resetAfterMs?: number; laterAnswerAfterMs?: number } = {},
) {
  const stats = { connections: 0, answered: 0, reset: 0 };
  const server = createTcpServer((socket) => {
    stats.connections++;
    const answerAfterMs = stats.connections > 1 ? (delays.laterAnswerAfterMs ?? 0) : 0;
    let buffered = Buffer.alloc(0);
    let served = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.subarray(0, end).toString())?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.subarray(end + 4 + length);
        if (served === answered) {
          setTimeout(() => {
            stats.reset++;
            socket.resetAndDestroy();
          }, delays.resetAfterMs ?? 0);
          return;
        }
        served++;
        setTimeout(() => {
          if (socket.destroyed) return;
          stats.answered++;
          socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
        }, answerAfterMs);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    stats,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('kept-alive connections the receiver closed', () => {
  it('a POST that meets one goes again on a new connection: delivered, nothing reported', async () => {
    const receiver = await resettingReceiver(1);
    const poster = createWebhookPoster({ policy: policy() });
    try {
      expect(await send(poster, receiver.url)).toMatchObject({ ok: true, statusCode: 204 });
      // Reuses the first connection, which the receiver resets: sent again on a second one.
      expect(await send(poster, receiver.url)).toMatchObject({ ok: true, statusCode: 204 });
      expect(receiver.stats).toEqual({ connections: 2, answered: 2, reset: 1 });
    } finally {
      poster.close();
      await receiver.close();
    }
  });

  it('the POST sent again has only what is left of the first deadline', async () => {
    // The reuse is reset 600 ms in; the second connection would answer 700 ms later, past the
    // 1 s the whole exchange has.
    const receiver = await resettingReceiver(1, { resetAfterMs: 600, laterAnswerAfterMs: 700 });
    const poster = createWebhookPoster({ policy: policy() });
    try {
      expect(await send(poster, receiver.url)).toMatchObject({ ok: true, statusCode: 204 });
      expect(await send(poster, receiver.url, 1_000)).toMatchObject({
        ok: false,
        statusCode: null,
        error: 'timeout after 1000 ms',
      });
      expect(receiver.stats).toMatchObject({ connections: 2, answered: 1, reset: 1 });
    } finally {
      poster.close();
      await receiver.close();
    }
  });

  it('a new connection reset before its answer is a failed attempt, not sent again', async () => {
    const receiver = await resettingReceiver(0);
    const poster = createWebhookPoster({ policy: policy() });
    try {
      expect(await send(poster, receiver.url)).toMatchObject({
        ok: false,
        statusCode: null,
        error: 'ECONNRESET',
      });
      expect(receiver.stats).toEqual({ connections: 1, answered: 0, reset: 1 });
    } finally {
      poster.close();
      await receiver.close();
    }
  });
});
