import type { Logger } from '@tributary/runtime';
import { type PublicClient, createPublicClient, custom } from 'viem';
import { classifyRpcError } from '@tributary/evm';
import { type RpcEndpoint, createRpcEndpoint } from './createRpcEndpoint.ts';

type RpcCall = <T>(method: string, params: unknown[]) => Promise<T>;

export interface Rpc {
  /** viem client (contract reads, getCode) over the same endpoints, retries and failover. */
  client: PublicClient;
  call: RpcCall;
}

export interface RpcOptions {
  /** In order of preference: the first healthy one is used; the others take over when it fails. */
  urls: readonly string[];
  timeoutMs: number;
  /** Calls in one batch request. */
  batchSize: number;
  /** Calls per second per URL (the provider's plan); 0: unlimited. */
  requestsPerSecond: number;
  /** Tries of one call over timeouts, dropped connections and 5xx (across endpoints) before it fails. */
  attempts: number;
  /** How long a failed endpoint is passed over first (doubles while it keeps failing). */
  demoteMs: number;
  logger?: Logger;
  /** Each request made: its method, how long it took, and `ok` or the kind of its failure (metrics). */
  onCall?: (method: string, seconds: number, outcome: string) => void;
}

/**
 * JSON-RPC over HTTP with request batching, several endpoints with failover, a rate limit per
 * endpoint, Retry-After honoured (every call to that endpoint waits) and transient failures
 * retried with backoff. Range errors, missing methods and other answers of the node go to the
 * caller, which knows what to do about them (fetchBlockRange).
 */
export function createRpc(opts: RpcOptions): Rpc {
  if (opts.urls.length === 0) throw new Error('createRpc: no RPC URL');
  const endpoints: RpcEndpoint[] = opts.urls.map((url) =>
    createRpcEndpoint({
      url,
      timeoutMs: opts.timeoutMs,
      batchSize: opts.batchSize,
      requestsPerSecond: opts.requestsPerSecond,
      demoteMs: opts.demoteMs,
    }),
  );
  const attempts = opts.attempts;

  /** The first healthy endpoint in order; when none is, the least broken (fewest failures in a row), then the one back first. */
  function pick(): RpcEndpoint {
    const now = Date.now();
    let best = endpoints[0]!;
    for (const e of endpoints) {
      if (e.demotedUntil() <= now) return e;
      if (
        e.failures() < best.failures() ||
        (e.failures() === best.failures() && e.demotedUntil() < best.demotedUntil())
      ) {
        best = e;
      }
    }
    return best;
  }

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    let failures = 0;
    let rateLimited = 0;
    for (;;) {
      const endpoint = pick();
      await endpoint.ready();
      const sentAt = Date.now();
      try {
        const result = await endpoint.request<T>(method, params);
        endpoint.succeeded();
        opts.onCall?.(method, (Date.now() - sentAt) / 1000, 'ok');
        return result;
      } catch (err) {
        const why = classifyRpcError(err);
        opts.onCall?.(method, (Date.now() - sentAt) / 1000, why.kind);
        if (why.kind === 'rate-limited') {
          // Not the endpoint's failure; a provider that keeps refusing is left to the caller's backoff.
          if (++rateLimited > 20) throw err;
          const wait = why.retryAfterMs ?? Math.min(250 * 2 ** rateLimited, 10_000);
          endpoint.pause(wait);
          opts.logger?.debug({ url: endpoint.url, method, waitMs: wait }, 'rpc rate limited: waiting');
          continue;
        }
        if (why.kind !== 'transient') throw err;
        endpoint.demote(sentAt);
        if (++failures >= attempts) throw err;
        const backoff = Math.min(100 * 2 ** failures, 5_000) * (0.5 + Math.random() / 2);
        opts.logger?.warn(
          {
            url: endpoint.url,
            method,
            attempt: failures,
            retryInMs: Math.round(backoff),
            err: (err as Error).message.split('\n')[0],
          },
          'rpc call failed; retrying',
        );
        await new Promise((r) => setTimeout(r, backoff));
      }
    }
  }

  const client = createPublicClient({
    transport: custom(
      {
        request: ({ method, params }: { method: string; params?: unknown }) =>
          call(method, (params as unknown[]) ?? []),
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
  return { client, call: call as RpcCall };
}
