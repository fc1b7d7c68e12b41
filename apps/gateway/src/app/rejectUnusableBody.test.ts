import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;

beforeAll(async () => {
  receiver = await startTestReceiver();
  gw = await startTestGateway({ streams: true });
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

async function send(method: string, path: string, body: string) {
  const res = await gw.request(path, { method, headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

/** A stream body whose ABI nests tuple components `levels` deep (valid otherwise). */
function streamWithAbiDepth(levels: number): string {
  const input = `${'{"type":"tuple","name":"t","components":['.repeat(levels)}{"type":"uint256","name":"v"}${']}'.repeat(levels)}`;
  return `{"webhookUrl":"${receiver.url}","description":"d","tag":"t","chainIds":["0x7a69"],"includeContractLogs":true,"abi":[{"type":"event","name":"E","inputs":[${input}]}]}`;
}

describe('bodies that JSON.parse reads but the handlers cannot use', () => {
  it('refuses nesting past 64 levels (a stack overflow in the validators, which was a 500)', async () => {
    expect(await send('PUT', '/streams/evm', streamWithAbiDepth(5_000))).toEqual({
      status: 400,
      body: { message: 'Request body nests deeper than 64 levels' },
    });
    const filter = `${'{"and":['.repeat(5_000)}{"eq":["from","0x0"]}${']}'.repeat(5_000)}`;
    const body = `{"advancedOptions":[{"topic0":"Transfer(address,address,uint256)","filter":${filter}}]}`;
    expect(await send('POST', '/streams/evm/00000000-0000-0000-0000-000000000000', body)).toEqual({
      status: 400,
      body: { message: 'Request body nests deeper than 64 levels' },
    });
  });

  it('accepts a body nested well within the limit', async () => {
    const created = await send('PUT', '/streams/evm', streamWithAbiDepth(5));
    expect(created.status).toBe(200);
  });

  it('refuses a NUL character or an unpaired surrogate, which PostgreSQL cannot store (500s before)', async () => {
    const nul = {
      status: 400,
      body: { message: 'Request body strings must not contain the NUL character (\\u0000)' },
    };
    expect(await send('POST', '/settings', '{"secretKey":"secret\\u0000key-123"}')).toEqual(nul);
    const stream = JSON.parse(streamWithAbiDepth(1)) as Record<string, unknown>;
    expect(await send('PUT', '/streams/evm', JSON.stringify({ ...stream, description: 'a\u0000b' }))).toEqual(
      nul,
    );
    const lone = {
      status: 400,
      body: { message: 'Request body strings must be valid Unicode (no unpaired surrogate such as \\ud800)' },
    };
    expect(await send('POST', '/settings', '{"secretKey":"secret-key-\\ud800"}')).toEqual(lone);
    expect(await send('PUT', '/streams/evm', JSON.stringify({ ...stream, tag: 'a\ud800' }))).toEqual(lone);
    // The secret is unchanged.
    const settings = await gw.request('/settings');
    expect(((await settings.json()) as { secretKey: string }).secretKey).not.toContain('\u0000');
  });
});
