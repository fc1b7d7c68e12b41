import { type Server, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
