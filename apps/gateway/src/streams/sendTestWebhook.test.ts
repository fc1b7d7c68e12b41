import { freePort } from '@tributary/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

// The test webhook's failure, as the client and the log see it: credentials in the URL never
// reach a log line, and the answer names nothing the gateway found out on its side.
let gw: TestGateway;
const logged: string[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
  gw = await startTestGateway({ streams: true, logger });
});

afterAll(async () => {
  await gw?.close();
});

const body = (webhookUrl: string) => ({
  webhookUrl,
  description: 'd',
  tag: 't',
  chainIds: ['0x7a69'],
  includeNativeTxs: true,
});

async function create(webhookUrl: string) {
  const res = await gw.request('/streams/evm', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body(webhookUrl)),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('a test webhook that fails', () => {
  it('logs the URL with its credentials hidden, and answers with them hidden too', async () => {
    const port = await freePort(); // nothing listens there
    const res = await create(`http://alice:s3cret@127.0.0.1:${port}/hook?page=2&token=t0k3n`);
    expect(res).toEqual({
      status: 400,
      body: {
        message: `Could not POST to http://***:***@127.0.0.1:${port}/hook?page=2&token=***. Please check your webhook URL.`,
      },
    });
    const lines = logged.filter((l) => l.includes('test webhook failed'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      url: `http://***:***@127.0.0.1:${port}/hook?page=2&token=***`,
      error: 'ECONNREFUSED',
    });
    expect(logged.join('\n')).not.toMatch(/s3cret|t0k3n/);

    // A URL without credentials is answered as given, as the hosted service does.
    const receiver = await startTestReceiver();
    receiver.state.status = 503;
    try {
      expect(await create(receiver.url)).toEqual({
        status: 400,
        body: { message: `Could not POST to ${receiver.url}. Please check your webhook URL.` },
      });
    } finally {
      await receiver.close();
    }
  });
});
