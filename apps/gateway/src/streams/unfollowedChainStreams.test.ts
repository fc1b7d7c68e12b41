import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

// The hosted service accepts streams on every chain it supports; a deployment follows some of them.
const warnings: { msg: string; streamId?: string; chainIds?: string[] }[] = [];
const logger = pino(
  { level: 'warn' },
  new Writable({
    write(chunk, _encoding, done) {
      warnings.push(JSON.parse(String(chunk)));
      done();
    },
  }),
);
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;

beforeAll(async () => {
  gw = await startTestGateway({ streams: true, logger });
  receiver = await startTestReceiver();
  await followChains(gw.db.pool, [0x7a69]);
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

const body = (chainIds: string[]) => ({
  webhookUrl: receiver.url,
  description: 'native transactions',
  tag: 'unfollowed',
  chainIds,
  includeNativeTxs: true,
});

const put = (chainIds: string[]) =>
  gw.request('/streams/evm', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body(chainIds)),
  });

describe('a stream on a chain the deployment does not follow', () => {
  it('is created as the hosted service would, and the log names the chains not followed', async () => {
    const res = await put(['0x7a69', '0x1', '0x89']);
    expect(res.status).toBe(200);
    const stream = (await res.json()) as { id: string; chainIds: string[]; status: string };
    expect(stream).toMatchObject({ chainIds: ['0x7a69', '0x1', '0x89'], status: 'active' });
    expect(warnings.filter((w) => w.streamId === stream.id)).toEqual([
      expect.objectContaining({
        msg: 'stream on chains this deployment does not follow: no webhooks for them until a follower follows them',
        chainIds: ['0x1', '0x89'],
      }),
    ]);
  });

  it('logs nothing for a stream on followed chains only', async () => {
    const res = await put(['0x7a69']);
    expect(res.status).toBe(200);
    const stream = (await res.json()) as { id: string };
    expect(warnings.filter((w) => w.streamId === stream.id)).toEqual([]);
  });
});
