import type { Pool } from '@tributary/db';
import { getStreamById } from '@tributary/db/streams';
import type { CountedStream } from './countStreamWebhooks.ts';
import type { KindName, KindStream } from './streamKind.ts';

export interface GatewayAccess {
  gatewayUrl: string;
  apiKey: string;
  webhookUrl: string;
}

/** A stream of a run: its kind, what it was created with, and the blocks it is due. */
export interface RunStream extends CountedStream {
  kind: KindName;
  stream: KindStream;
}

/**
 * One gateway call; `retry`: until it answers 2xx (the gateway or PostgreSQL may be down for a
 * moment during a chaos run; a client retries).
 */
async function call(g: GatewayAccess, method: string, path: string, body: unknown, retry: boolean) {
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

/** The block a stream starts after (its start_blocks entry: the follower's checkpoint when it was stored). */
async function startBlockOf(pool: Pool, id: string, chainId: number): Promise<number> {
  for (;;) {
    const row = await getStreamById(pool, id).catch(() => undefined); // PostgreSQL down for a moment
    if (row) return row.startBlocks[String(chainId)] ?? -1;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Creates one stream of a kind through the gateway as a user does (PUT, then its addresses), and
 * returns it with the blocks it is due: every block mined after its calls answered (`head()`
 * then). `tag` names it in the webhooks; `retry` retries while the gateway or PostgreSQL is away.
 * A create whose answer was lost leaves a stream with no address, which gets nothing.
 */
export async function createKindStream(opts: {
  access: GatewayAccess;
  kind: KindName;
  stream: KindStream;
  label: string;
  chainId: number;
  pool: Pool;
  head: () => Promise<number>;
  retry?: boolean;
}): Promise<RunStream> {
  const retry = opts.retry ?? false;
  const body = {
    webhookUrl: opts.access.webhookUrl,
    description: opts.label,
    tag: opts.label,
    chainIds: [`0x${opts.chainId.toString(16)}`],
    ...opts.stream.body,
  };
  const created = await call(opts.access, 'PUT', '/streams/evm', body, retry);
  if (opts.stream.addresses.length > 0)
    await call(
      opts.access,
      'POST',
      `/streams/evm/${created.id}/address`,
      { address: opts.stream.addresses },
      retry,
    );
  const fromBlock = await opts.head();
  return {
    id: created.id,
    kind: opts.kind,
    stream: opts.stream,
    label: opts.label,
    notifyRemovals: opts.stream.body['notifyRemovals'] === true,
    fromBlock,
    startBlock: await startBlockOf(opts.pool, created.id, opts.chainId),
  };
}
