import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultyRpc, startFaultyRpc } from './startFaultyRpc.ts';
import { type StartedAnvil, startAnvil } from './startAnvil.ts';

let anvil: StartedAnvil;
let proxy: FaultyRpc;

beforeAll(async () => {
  anvil = await startAnvil();
  await post(anvil.rpcUrl, { jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x5'] });
  proxy = await startFaultyRpc({ upstream: anvil.rpcUrl });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as unknown,
  };
}
const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

describe('startFaultyRpc', () => {
  it('passes single and batch requests through unchanged, ids kept', async () => {
    const batch = [
      call(7, 'eth_getBlockByNumber', ['0x3', false]),
      call('x' as unknown as number, 'eth_blockNumber'),
    ];
    expect(await post(proxy.url, batch)).toEqual(await post(anvil.rpcUrl, batch));
    expect(await post(proxy.url, call(1, 'eth_chainId'))).toEqual(
      await post(anvil.rpcUrl, call(1, 'eth_chainId')),
    );
  });

  it('answers 429 with Retry-After, then passes again', async () => {
    proxy.setFaults({ tooManyRequests: { count: 1, retryAfterSeconds: 3 } });
    const refused = await post(proxy.url, call(1, 'eth_blockNumber'));
    expect([refused.status, refused.retryAfter]).toEqual([429, '3']);
    expect((await post(proxy.url, call(1, 'eth_blockNumber'))).status).toBe(200);
  });

  it('refuses missing methods with -32601 inside a batch, answering the rest', async () => {
    proxy.setFaults({ missingMethods: ['eth_getBlockReceipts', 'debug_trace*'] });
    const { body } = await post(proxy.url, [
      call(1, 'eth_getBlockReceipts', ['0x1']),
      call(2, 'debug_traceBlockByNumber', ['0x1', {}]),
      call(3, 'eth_chainId'),
    ]);
    expect(body).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32601, message: 'the method eth_getBlockReceipts does not exist/is not available' },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32601,
          message: 'the method debug_traceBlockByNumber does not exist/is not available',
        },
      },
      { jsonrpc: '2.0', id: 3, result: '0x7a69' },
    ]);
    proxy.setFaults({ missingMethods: undefined });
  });

  it('caps eth_getLogs by blocks with the provider-style errors', async () => {
    proxy.setFaults({ logsCap: { style: 'too-wide', maxBlocks: 2 } });
    const wide = await post(proxy.url, call(1, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2' }]));
    expect(wide.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, message: 'block range is too wide' },
    });
    proxy.setFaults({ logsCap: { style: 'max-block-range', maxBlocks: 2 } });
    const ok = await post(proxy.url, call(1, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1' }]));
    expect(ok.body).toEqual({ jsonrpc: '2.0', id: 1, result: [] });
    const max = await post(proxy.url, call(1, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x4' }]));
    expect(max.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'Max block range is 2' },
    });
    proxy.setFaults({ logsCap: undefined });
  });

  it('drops the connection, and hangs until the client gives up', async () => {
    proxy.setFaults({ drop: { count: 1 } });
    await expect(post(proxy.url, call(1, 'eth_chainId'))).rejects.toThrow();
    proxy.setFaults({ hang: { methods: ['eth_chainId'], count: 1 } });
    const hung = fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call(1, 'eth_chainId')),
      signal: AbortSignal.timeout(300),
    });
    await expect(hung).rejects.toThrow();
    expect([proxy.stats.faults['drop'], proxy.stats.faults['hang']]).toEqual([1, 1]);
    expect((await post(proxy.url, call(1, 'eth_chainId'))).status).toBe(200);
  });

  it('exclusive: a change of the chain waits for the requests at the node, and holds the new ones until it is done', async () => {
    // A slow node behind the proxy keeps a request "at the node" for 300 ms.
    const slowNode = await startFaultyRpc({ upstream: anvil.rpcUrl, faults: { latencyMs: 300 } });
    const front = await startFaultyRpc({ upstream: slowNode.url });
    try {
      const blockNumber = async (url: string) =>
        Number(((await post(url, call(1, 'eth_blockNumber'))).body as { result: string }).result);
      const head = await blockNumber(anvil.rpcUrl);
      // Without the wait, the block would be mined while the first request is at the slow node.
      const before = blockNumber(front.url);
      await new Promise((r) => setTimeout(r, 50));
      const change = front.exclusive(() => post(anvil.rpcUrl, call(1, 'anvil_mine', ['0x1'])));
      await new Promise((r) => setTimeout(r, 10));
      const after = blockNumber(front.url);
      expect(await Promise.all([before, after])).toEqual([head, head + 1]);
      await change;
    } finally {
      await front.close();
      await slowNode.close();
    }
  });
});
