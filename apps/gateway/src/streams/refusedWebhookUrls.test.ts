import { randomUUID } from 'node:crypto';
import { getStream, insertStream } from '@tributary/db/streams';
import { type WebhookPolicy, type WebhookPoster, createWebhookPoster } from '@tributary/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

// A deployment that refuses private addresses, with a resolver that answers 127.0.0.1 for
// `rebound.test`: the loopback receiver is what such a name would reach, were it let through.
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
let port = '';
const strict: WebhookPolicy = { allowPrivate: false, requireHttps: false, allowedPorts: [] };
const posters = {
  strict: createWebhookPoster({
    policy: strict,
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  }),
  httpsOnly: createWebhookPoster({ policy: { ...strict, allowPrivate: true, requireHttps: true } }),
};
let poster: WebhookPoster = posters.strict;

beforeAll(async () => {
  receiver = await startTestReceiver();
  port = new URL(receiver.url).port;
  gw = await startTestGateway({
    streams: true,
    webhookPoster: { post: (p) => poster.post(p), close: () => undefined },
  });
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
  posters.strict.close();
  posters.httpsOnly.close();
});

const body = (webhookUrl: string) => ({
  webhookUrl,
  description: 'native transactions',
  tag: 'refused',
  chainIds: ['0x7a69'],
  includeNativeTxs: true,
});

async function call(method: string, path: string, json: unknown) {
  const res = await gw.request(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  return { status: res.status, text: await res.text() };
}

const notAllowed = (url: string, message: string) => ({
  status: 400,
  text: JSON.stringify({
    message: `Could not POST to ${url}. Please check your webhook URL.`,
    details: { webhookUrl: { message } },
  }),
});

/** A stream stored before the operator's policy changed, or while its name resolved elsewhere. */
async function storedStream(webhookUrl: string) {
  const id = randomUUID();
  await insertStream(gw.db.pool, {
    id,
    accountId: gw.apiKey.accountId,
    config: body(webhookUrl),
    chainIds: [0x7a69],
  });
  return id;
}

describe('a webhook URL the operator does not allow', () => {
  it('is answered "not allowed", never with the address it resolved to, and nothing is stored or sent', async () => {
    poster = posters.strict;
    for (const url of [`http://rebound.test:${port}/hook`, receiver.url, 'http://[::ffff:127.0.0.1]:1/x']) {
      const res = await call('PUT', '/streams/evm', body(url));
      expect(res, url).toEqual(notAllowed(url, 'the address is not allowed'));
      // The URL the client gave is all it gets back: no resolved address beside it.
      expect(res.text.replace(url, '')).not.toMatch(/127\.0\.0\.1|::ffff/);
    }
    expect(receiver.state.received).toBe(0);
    const list = await gw.request('/streams/evm?limit=10');
    expect(await list.json()).toEqual({ result: [], total: 0 });
  });

  it('refuses an update or a re-activation when the stored name now resolves to a refused address', async () => {
    poster = posters.strict;
    const url = `http://rebound.test:${port}/hook`;
    const id = await storedStream(url);
    expect(await call('POST', `/streams/evm/${id}`, { tag: 'renamed' })).toEqual(
      notAllowed(url, 'the address is not allowed'),
    );
    expect(await call('POST', `/streams/evm/${id}/status`, { status: 'paused' })).toMatchObject({
      status: 200,
    });
    expect(await call('POST', `/streams/evm/${id}/status`, { status: 'active' })).toEqual(
      notAllowed(url, 'the address is not allowed'),
    );
    expect((await getStream(gw.db.pool, gw.apiKey.accountId, id))?.config['tag']).toBe('refused');
    expect(receiver.state.received).toBe(0);
  });

  it('refuses http: when the operator requires https, at create and at update', async () => {
    poster = posters.httpsOnly;
    expect(await call('PUT', '/streams/evm', body(receiver.url))).toEqual(
      notAllowed(receiver.url, 'https is required'),
    );
    const id = await storedStream(receiver.url);
    expect(await call('POST', `/streams/evm/${id}`, { tag: 'renamed' })).toEqual(
      notAllowed(receiver.url, 'https is required'),
    );
    expect(receiver.state.received).toBe(0);
  });
});
