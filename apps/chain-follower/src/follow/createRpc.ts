import { http, type PublicClient, createPublicClient } from 'viem';

export type RpcCall = <T>(method: string, params: unknown[]) => Promise<T>;

export interface Rpc {
  /** viem client (contract reads, getCode) sharing the batching transport. */
  client: PublicClient;
  call: RpcCall;
}

/** JSON-RPC over HTTP with request batching: many small calls (headers, getCode) share one round trip. */
export function createRpc(opts: { url: string; timeoutMs: number; batchSize?: number }): Rpc {
  const client = createPublicClient({
    transport: http(opts.url, {
      batch: { batchSize: opts.batchSize ?? 100, wait: 0 },
      timeout: opts.timeoutMs,
      retryCount: 1,
    }),
  });
  const request = client.request as unknown as (args: {
    method: string;
    params: unknown[];
  }) => Promise<unknown>;
  return {
    client,
    call: <T>(method: string, params: unknown[]) => request({ method, params }) as Promise<T>,
  };
}

export const toHex = (n: number) => `0x${n.toString(16)}`;
export const hexToNumber = (h: string) => Number.parseInt(h, 16);
export const hexToDecimal = (h: string | null | undefined) => (h ? BigInt(h).toString() : '0');
