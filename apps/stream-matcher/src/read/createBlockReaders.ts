import type { RpcCall } from '@tributary/evm';
import type { ChainReader, ContractCall } from '@tributary/stream-rules';
import { type PublicClient, createPublicClient, http } from 'viem';

/** Gives each block event its own reader: calls at that block, identical calls made once. */
export interface BlockReaders {
  forBlock(chainId: number, blockNumber: number): ChainReader;
  /** Plain JSON-RPC to the chain's node (a block's transactions and traces); undefined without a node. */
  rpc(chainId: number): RpcCall | undefined;
}

/** At most `limit` tasks at once; the rest wait in order. */
function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/**
 * JSON-RPC readers for trigger calls, native balances and block contents. Requests of one tick go
 * to the node as one JSON-RPC batch; `concurrency` bounds the calls in flight per matcher.
 */
export function createBlockReaders(opts: {
  rpcUrls: Map<number, string>;
  concurrency: number;
}): BlockReaders {
  const clients = new Map<number, PublicClient>();
  for (const [chainId, url] of opts.rpcUrls) {
    clients.set(
      chainId,
      createPublicClient({ transport: http(url, { batch: { batchSize: 100 }, retryCount: 2 }) }),
    );
  }
  const limit = createLimiter(opts.concurrency);
  const calls = new Map<number, RpcCall>();
  for (const [chainId, client] of clients) {
    calls.set(chainId, <T>(method: string, params: unknown[]) =>
      limit(() => client.request({ method, params } as never) as Promise<T>),
    );
  }

  return {
    rpc: (chainId) => calls.get(chainId),
    forBlock(chainId, blockNumber) {
      const client = clients.get(chainId);
      const cache = new Map<string, Promise<unknown>>();
      const once = <T>(key: string, run: (c: PublicClient) => Promise<T>): Promise<T> => {
        let p = cache.get(key) as Promise<T> | undefined;
        if (!p) {
          p = client
            ? limit(() => run(client))
            : Promise.reject(new Error(`no RPC endpoint is configured for chain ${chainId}`));
          // A rejection is read by every caller; keep Node from reporting it as unhandled meanwhile.
          p.catch(() => undefined);
          cache.set(key, p);
        }
        return p;
      };
      const block = BigInt(blockNumber);
      return {
        call: (call: ContractCall) =>
          once(`c:${call.to}:${call.data}:${call.from ?? ''}`, async (c) => {
            const { data } = await c.call({
              to: call.to,
              data: call.data,
              blockNumber: block,
              ...(call.from ? { account: call.from } : {}),
            });
            return data ?? '0x';
          }),
        balance: (address) => once(`b:${address}`, (c) => c.getBalance({ address, blockNumber: block })),
      };
    },
  };
}
