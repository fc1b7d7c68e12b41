import { type Pool, getStreamById } from '@tributary/db';
import { erc20TransferEventAbi } from '@tributary/evm';
import type { ChaosStream } from './countWebhooks.ts';

interface GatewayAccess {
  gatewayUrl: string;
  apiKey: string;
  webhookUrl: string;
}

/**
 * One gateway call; `retry`: until it answers 2xx (the gateway or PostgreSQL may be down for a
 * moment during the run; a client retries).
 */
async function call(g: GatewayAccess, method: string, path: string, body: unknown, retry = false) {
  for (;;) {
    try {
      const res = await fetch(`${g.gatewayUrl}${path}`, {
        method,
        headers: { 'x-api-key': g.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      if (res.ok) return JSON.parse(text) as { id: string };
      if (!retry || res.status < 500) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    } catch (err) {
      if (!retry || (err instanceof Error && err.message.startsWith(`${method} ${path}:`))) throw err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

const streamBody = (g: GatewayAccess, tag: string, extra: Record<string, unknown> = {}) => ({
  webhookUrl: g.webhookUrl,
  description: tag,
  tag,
  chainIds: ['0x7a69'],
  includeContractLogs: true,
  topic0: ['Transfer(address,address,uint256)'],
  abi: [erc20TransferEventAbi],
  ...extra,
});

/** The block a stream starts after (its start_blocks entry: the follower's checkpoint when it was stored). */
async function startBlockOf(pool: Pool, id: string): Promise<number> {
  for (;;) {
    const row = await getStreamById(pool, id).catch(() => undefined); // PostgreSQL down for a moment
    if (row) return row.startBlocks['31337'] ?? -1;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Three streams through the gateway, as a user creates them: Transfer logs of the first emitter,
 * of the second, and of every contract (allAddresses). Each is due every block mined after its
 * calls answered (the chain's head then).
 */
export async function createChaosStreams(
  opts: GatewayAccess & { emitters: readonly [string, string]; head: () => Promise<number>; pool: Pool },
): Promise<ChaosStream[]> {
  const specs: (string | 'all')[] = [opts.emitters[0], opts.emitters[1], 'all'];
  const streams: ChaosStream[] = [];
  for (const [i, address] of specs.entries()) {
    const created = await call(
      opts,
      'PUT',
      '/streams/evm',
      streamBody(opts, `chaos-${i}`, address === 'all' ? { allAddresses: true } : {}),
    );
    if (address !== 'all') await call(opts, 'POST', `/streams/evm/${created.id}/address`, { address });
    streams.push({
      id: created.id,
      address,
      fromBlock: 0,
      startBlock: await startBlockOf(opts.pool, created.id),
    });
  }
  const fromBlock = await opts.head();
  return streams.map((s) => ({ ...s, fromBlock }));
}

/**
 * A stream created while the run goes on (while a server is down, say), retried until the
 * gateway answers, as a client would. It is due every block mined after its calls answered; the
 * blocks between its start block and then may come or not. A create whose answer was lost leaves
 * a stream with no address, which gets nothing.
 */
export async function createLateStream(
  opts: GatewayAccess & { address: string; tag: string; head: () => Promise<number>; pool: Pool },
): Promise<ChaosStream> {
  const created = await call(opts, 'PUT', '/streams/evm', streamBody(opts, opts.tag), true);
  await call(opts, 'POST', `/streams/evm/${created.id}/address`, { address: opts.address }, true);
  const fromBlock = await opts.head();
  return {
    id: created.id,
    address: opts.address,
    fromBlock,
    startBlock: await startBlockOf(opts.pool, created.id),
  };
}
