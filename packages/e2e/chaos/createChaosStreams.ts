import { erc20TransferEventAbi } from '@tributary/evm';
import type { ChaosStream } from './countWebhooks.ts';

/**
 * Three streams through the gateway, as a user creates them: Transfer logs of the first emitter,
 * of the second, and of every contract (allAddresses). Returns them with the block each starts
 * after (the chain's head once they exist).
 */
export async function createChaosStreams(opts: {
  gatewayUrl: string;
  apiKey: string;
  webhookUrl: string;
  emitters: readonly [string, string];
  head: () => Promise<number>;
}): Promise<ChaosStream[]> {
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${opts.gatewayUrl}${path}`, {
      method,
      headers: { 'x-api-key': opts.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as { id: string };
  };
  const specs: (string | 'all')[] = [opts.emitters[0], opts.emitters[1], 'all'];
  const streams: ChaosStream[] = [];
  for (const [i, address] of specs.entries()) {
    const created = await call('PUT', '/streams/evm', {
      webhookUrl: opts.webhookUrl,
      description: `chaos ${i}`,
      tag: `chaos-${i}`,
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
      ...(address === 'all' ? { allAddresses: true } : {}),
    });
    if (address !== 'all') await call('POST', `/streams/evm/${created.id}/address`, { address });
    streams.push({ id: created.id, address, fromBlock: 0 });
  }
  // The matcher learns of new streams from change events: give it a moment, then start counting.
  await new Promise((r) => setTimeout(r, 3_000));
  const fromBlock = await opts.head();
  return streams.map((s) => ({ ...s, fromBlock }));
}
