import type { AddressInfo } from 'node:net';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { webhookHeaders } from '@tributary/webhooks';
import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressHandler } from './createExpressHandler.ts';
import { createReceiver } from './createReceiver.ts';

// The express handler over HTTP: it reads the raw bytes itself, takes them from express.raw(),
// and says so plainly when a JSON parser got to the body first.
const SECRET = 'express-test-secret-0123456789abcd';
let db: TestDatabase;
let pool: pg.Pool;
let server: import('node:http').Server;
let base: string;
const handled: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  const receiver = createReceiver({
    pool,
    secrets: [SECRET],
    onWebhook: (_w, ctx) => {
      handled.push(ctx.webhookId);
    },
  });
  const app = express();
  app.post('/plain', createExpressHandler(receiver));
  app.post('/raw', express.raw({ type: '*/*' }), createExpressHandler(receiver));
  app.post('/json', express.json(), createExpressHandler(receiver));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await pool?.end();
  await db?.drop();
});

const body = (hash: string) =>
  JSON.stringify({
    confirmed: true,
    chainId: '0x7a69',
    streamId: 's-express',
    block: { number: '1', hash, timestamp: '1' },
    erc20Transfers: [],
  });

async function post(path: string, id: string, raw: string) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: webhookHeaders({ id, body: raw, secrets: { current: SECRET }, queueSize: 0 }),
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('createExpressHandler', () => {
  it('answers a webhook from the raw bytes, with or without express.raw() in front', async () => {
    expect(await post('/plain', 'x-1', body('0x01'))).toEqual({
      status: 200,
      body: { outcome: 'handled', released: 0, webhookId: 'x-1' },
    });
    expect(await post('/raw', 'x-2', body('0x02'))).toEqual({
      status: 200,
      body: { outcome: 'handled', released: 0, webhookId: 'x-2' },
    });
    expect(await post('/plain', 'x-2', body('0x02'))).toEqual({
      status: 200,
      body: { outcome: 'duplicate', webhookId: 'x-2' },
    });
    expect(handled).toEqual(['x-1', 'x-2']);
  });

  it('refuses a forged body with 401 and the reason', async () => {
    const res = await fetch(`${base}/plain`, {
      method: 'POST',
      headers: webhookHeaders({ id: 'x-3', body: body('0x03'), secrets: { current: SECRET }, queueSize: 0 }),
      body: body('0x04'),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      outcome: 'refused',
      reason: 'webhook-signature does not match the body with any secret',
    });
  });

  it('says so when express.json() consumed the body before it', async () => {
    expect(await post('/json', 'x-5', body('0x05'))).toEqual({
      status: 500,
      body: {
        outcome: 'failed',
        reason: 'the body was parsed before the receiver: mount it before express.json()',
      },
    });
    expect(handled).not.toContain('x-5');
  });
});
