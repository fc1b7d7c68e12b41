import { type Pool, createPool } from '@tributary/db';
import { type TestDatabase, createTestDatabase, freePort } from '@tributary/testkit';
import { createWebhookPoster } from '@tributary/webhooks';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTestAccount, insertTestDelivery, insertTestStream } from '../testing/senderFixtures.ts';
import { attemptDelivery, createDeliveryStore } from './attemptDelivery.ts';
import { createEndpointSlots } from './createEndpointSlots.ts';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('a failed attempt in the log', () => {
  it('names the endpoint with the credentials of its URL hidden', async () => {
    const logged: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    const port = await freePort(); // nothing listens there
    const accountId = await insertTestAccount(pool, 's');
    const streamId = await insertTestStream(pool, {
      accountId,
      webhookUrl: `http://bob:hunter2@127.0.0.1:${port}/hook?sig=abc123&n=1`,
      tag: 't',
    });
    const deliveryId = await insertTestDelivery(pool, streamId, 1);
    const outcome = await attemptDelivery(
      {
        pool,
        logger,
        retryScheduleMs: [60_000],
        timeoutMs: 5_000,
        poster: createWebhookPoster({
          policy: { allowPrivate: true, requireHttps: false, allowedPorts: [] },
        }),
        successRateThreshold: 70,
        onStreamStatusChanged: () => undefined,
        // The stream has no maxRequestsPerSecond: its turn is never asked for.
        rateLimiter: { turn: () => Promise.reject(new Error('a stream without a limit took a turn')) },
        store: createDeliveryStore(pool, {
          threshold: 70,
          queueSizeMaxAgeMs: 1_000,
          onError: () => undefined,
        }),
        slots: createEndpointSlots(0),
      },
      deliveryId,
      0,
    );
    expect(outcome).toMatchObject({ outcome: 'retry', error: 'ECONNREFUSED' });
    const line = logged.find((l) => l.includes('webhook attempt failed'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      deliveryId,
      url: `http://***:***@127.0.0.1:${port}/hook?sig=***&n=1`,
      error: 'ECONNREFUSED',
    });
    expect(logged.join('\n')).not.toMatch(/hunter2|abc123/);
  });
});
