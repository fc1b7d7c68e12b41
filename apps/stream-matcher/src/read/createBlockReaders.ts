import type { RpcCall } from '@tributary/evm';
import type { ChainReader, ContractCall } from '@tributary/stream-rules';
import { type BaseError, type Hex, type PublicClient, createPublicClient, http, toHex } from 'viem';
import { getCallError } from 'viem/utils';

/** Gives each block event its own reader: calls at that block, identical calls made once. */
export interface BlockReaders {
  /**
   * Reads the state of that very block (EIP-1898, by its hash): a block at the same height that
   * replaced it after a reorg never answers for it. A node that no longer has the block (it
   * was replaced and its state pruned) is read at the block's height instead.
   */
  forBlock(chainId: number, block: { number: number; hash: string }): ChainReader;
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
    forBlock(chainId, { number, hash }) {
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
      const byHash = { blockHash: hash };
      const byNumber = toHex(number);
      /** `method` at the block by its hash; at its height when the node no longer knows the hash. */
      const at = async <T>(c: PublicClient, method: string, params: unknown[]): Promise<T> => {
        try {
          return (await c.request({ method, params: [...params, byHash] } as never)) as T;
        } catch (err) {
          if (!isUnknownBlock(err)) throw err;
          return (await c.request({ method, params: [...params, byNumber] } as never)) as T;
        }
      };
      return {
        call: (call: ContractCall) =>
          once(`c:${call.to}:${call.data}:${call.from ?? ''}`, async (c) => {
            const tx = { to: call.to, data: call.data, ...(call.from ? { from: call.from } : {}) };
            try {
              return (await at<Hex | null>(c, 'eth_call', [tx])) ?? '0x';
            } catch (err) {
              // As viem's call() says it (a revert's reason decoded): the trigger's error value.
              throw getCallError(err as BaseError, { to: call.to, data: call.data });
            }
          }),
        balance: (address) =>
          once(`b:${address}`, async (c) => BigInt(await at<Hex>(c, 'eth_getBalance', [address]))),
      };
    },
  };
}

/** A node's answer for a block hash it does not have (EIP-1898: -32001 "Resource not found"; "header not found", "unknown block"). */
function isUnknownBlock(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === -32001) return true;
    if (
      typeof e.message === 'string' &&
      /header not found|unknown block|block not found|resource not found/i.test(e.message)
    )
      return true;
  }
  return false;
}
