import { type Server, request as httpRequest } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponses, rawRequest } from '../testing/rawRequest.ts';
import { createHttpServer } from './createHttpServer.ts';

let app: Express;
let server: Server;
let base: string;
const seen: { sameRequestPrototype: boolean; sameResponsePrototype: boolean }[] = [];

beforeAll(async () => {
  app = express();
  app.use((_req, res, next) => {
    res.locals.started = true;
    next();
  });
  app.get('/echo/:id', (req, res) => {
    res
      .status(201)
      .set('x-seen', req.get('x-probe') ?? 'none')
      .json({
        id: req.params.id,
        query: req.query,
        path: req.path,
        locals: res.locals.started,
      });
  });
  app.post('/body', express.json(), (req, res) => {
    res.json({ body: req.body as unknown });
  });
  app.use((_req, res) => {
    res.status(404).json({ message: 'Not Found' });
  });
  server = createHttpServer(app);
  // Runs before express sees the request: what the server made, before any prototype swap.
  server.prependListener('request', (req, res) => {
    seen.push({
      sameRequestPrototype: Object.getPrototypeOf(req) === app.request,
      sameResponsePrototype: Object.getPrototypeOf(res) === app.response,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createHttpServer', () => {
  it('serves express routes with express request and response methods', async () => {
    const res = await fetch(`${base}/echo/42?a=1&b=two`, { headers: { 'x-probe': 'p' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-seen')).toBe('p');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      id: '42',
      query: { a: '1', b: 'two' },
      path: '/echo/42',
      locals: true,
    });
  });

  it('parses request bodies and answers unknown routes', async () => {
    const posted = await fetch(`${base}/body`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1, s: 'x' }),
    });
    expect(await posted.json()).toEqual({ body: { n: 1, s: 'x' } });
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: 'Not Found' });
  });

  it('serves many requests on one keep-alive connection, each on express prototypes from the start', async () => {
    const agentless = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${base}${path}`, { headers: { connection: 'keep-alive' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    seen.length = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => agentless(`/echo/${i}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(answers.map((a) => (JSON.parse(a.body) as { id: string }).id)).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
    // Made on express's prototypes: express's own prototype swap has nothing to change.
    expect(seen).toHaveLength(20);
    expect(seen.every((s) => s.sameRequestPrototype && s.sameResponsePrototype)).toBe(true);
  });
});

/** Starts `server` on a free port; resolves with the port and a close that drops every connection. */
async function listen(server: Server): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Resolves once the server counts `n` open connections (it accepts them a little after the client sees them open). */
async function connectionsReach(server: Server, n: number): Promise<void> {
  for (;;) {
    const count = await new Promise<number>((resolve, reject) =>
      server.getConnections((err, c) => (err ? reject(err) : resolve(c))),
    );
    if (count === n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('limits against slow and abusive clients', () => {
  // Node's own header time is 60 s: a server without the limit keeps this connection past the test's time.
  it(
    'answers 408 and closes a connection whose headers never end (slowloris)',
    { timeout: 20_000 },
    async () => {
      const slow = await listen(createHttpServer(app, { headersTimeoutMs: 300, requestTimeoutMs: 0 }));
      try {
        const received = await new Promise<Buffer>((resolve) => {
          const chunks: Buffer[] = [];
          const socket = connect(slow.port, '127.0.0.1');
          socket.write('GET /echo/1 HTTP/1.1\r\nhost: x\r\n');
          // One more header line now and then, as slowloris sends them, never the blank line that ends them.
          let n = 0;
          const drip = setInterval(() => socket.write(`x-drip-${n++}: 1\r\n`), 50);
          socket.on('data', (c: Buffer) => chunks.push(c));
          socket.on('error', () => undefined);
          socket.on('close', () => {
            clearInterval(drip);
            resolve(Buffer.concat(chunks));
          });
        });
        expect(parseResponses(received)).toEqual([
          {
            status: 408,
            contentType: 'application/json; charset=utf-8',
            text: '{"message":"Request not received in time"}',
          },
        ]);
      } finally {
        await slow.close();
      }
    },
  );

  it(
    'closes connections past the cap at once; once some close, requests are served again',
    { timeout: 20_000 },
    async () => {
      const server = createHttpServer(app, {
        maxConnections: 3,
        headersTimeoutMs: 60_000,
        requestTimeoutMs: 60_000,
      });
      const capped = await listen(server);
      const held: Socket[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const socket = connect(capped.port, '127.0.0.1');
          socket.on('error', () => undefined);
          await new Promise((resolve) => socket.once('connect', resolve));
          held.push(socket);
        }
        await connectionsReach(server, 3);
        // The fourth connection is accepted and closed without a word, its request unread.
        const refused = await rawRequest(
          capped.port,
          Buffer.from('GET /echo/4 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'),
        );
        expect(refused.toString('latin1')).toBe('');
        for (const socket of held) socket.destroy();
        await connectionsReach(server, 0);
        const res = await fetch(`http://127.0.0.1:${capped.port}/echo/5`);
        expect(res.status).toBe(201);
        expect(((await res.json()) as { id: string }).id).toBe('5');
      } finally {
        for (const socket of held) socket.destroy();
        await capped.close();
      }
    },
  );
});
