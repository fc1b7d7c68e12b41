import { Writable } from 'node:stream';
import { freePort } from '@tributary/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

// Stream changes reach the matchers through Kafka only as a fast path: every matcher checks
// PostgreSQL for committed changes before the blocks of each fetch. So the stream interface does
// not wait for Kafka, nor fail with it.
const lines: { msg: string; dependency?: string }[] = [];
const logger = pino(
  { level: 'warn' },
  new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  }),
);
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;

beforeAll(async () => {
  // A port nobody listens on: the broker is away for the whole test.
  gw = await startTestGateway({ streams: true, logger, kafkaBrokers: [`127.0.0.1:${await freePort()}`] });
  receiver = await startTestReceiver();
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

const call = async (method: string, path: string, body: unknown) => {
  const res = await gw.request(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const rowOf = async (id: string) =>
  (
    await gw.db.pool.query<{ status: string; addresses: string[] }>(
      `SELECT s.status, array(SELECT encode(a.address, 'hex') FROM stream_addresses a WHERE a.stream_id = s.id) AS addresses
         FROM streams s WHERE s.id = $1`,
      [id],
    )
  ).rows[0];

describe('the stream interface while Kafka is away', () => {
  it('creates, re-addresses, pauses, resumes and deletes streams, and says once that Kafka is failing', async () => {
    const created = await call('PUT', '/streams/evm', {
      webhookUrl: receiver.url,
      description: 'kafka away',
      tag: 'kafka-away',
      chainIds: ['0x7a69'],
      includeNativeTxs: true,
    });
    expect(created.status).toBe(200);
    const id = created.body['id'] as string;
    expect(await rowOf(id)).toEqual({ status: 'active', addresses: [] });

    const token = `0x${'ab'.repeat(20)}`;
    expect(await call('POST', `/streams/evm/${id}/address`, { address: token })).toEqual({
      status: 200,
      body: { streamId: id, address: token },
    });
    expect(await rowOf(id)).toEqual({ status: 'active', addresses: ['ab'.repeat(20)] });

    expect((await call('POST', `/streams/evm/${id}/status`, { status: 'paused' })).status).toBe(200);
    expect((await rowOf(id))?.status).toBe('paused');
    expect((await call('POST', `/streams/evm/${id}/status`, { status: 'active' })).status).toBe(200);
    expect((await rowOf(id))?.status).toBe('active');

    expect((await call('DELETE', `/streams/evm/${id}`, {})).status).toBe(200);
    expect(await rowOf(id)).toBeUndefined();

    expect(lines.filter((l) => l.dependency?.startsWith('kafka')).length).toBeGreaterThanOrEqual(1);
  });
});
