import { http, createPublicClient } from 'viem';
import { createRateLimiter } from './createRateLimiter.ts';

/** One JSON-RPC URL: its batching client, its rate limit, its Retry-After pause and its health. */
export interface RpcEndpoint {
  url: string;
  request<T>(method: string, params: unknown[]): Promise<T>;
  /** Resolves when a call may be sent: after a Retry-After pause, at the configured rate. */
  ready(): Promise<void>;
  /** The provider asked us to wait (Retry-After): every call to it waits. */
  pause(ms: number): void;
  /**
   * A call sent at `sentAt` failed (timeout, dropped, 5xx): used again only when no healthy
   * endpoint is left, or after a delay that doubles with each failure in a row.
   */
  demote(sentAt: number): void;
  succeeded(): void;
  /** When it may be used again (0: healthy). */
  demotedUntil(): number;
  /** Failures in a row (0 after a success). */
  failures(): number;
}

export function createRpcEndpoint(opts: {
  url: string;
  timeoutMs: number;
  batchSize: number;
  requestsPerSecond: number;
  demoteMs: number;
}): RpcEndpoint {
  const client = createPublicClient({
    transport: http(opts.url, {
      batch: { batchSize: opts.batchSize, wait: 0 },
      timeout: opts.timeoutMs,
      retryCount: 0, // retries are ours: with Retry-After, backoff and failover
    }),
  });
  const request = client.request as unknown as (args: {
    method: string;
    params: unknown[];
  }) => Promise<unknown>;
  const limiter = createRateLimiter(opts.requestsPerSecond);
  let pausedUntil = 0;
  let failures = 0;
  let demotedUntil = 0;
  let demotedAt = 0;
  return {
    url: opts.url,
    request: <T>(method: string, params: unknown[]) => request({ method, params }) as Promise<T>,
    async ready() {
      for (let wait = pausedUntil - Date.now(); wait > 0; wait = pausedUntil - Date.now()) {
        await new Promise((r) => setTimeout(r, wait));
      }
      await limiter.acquire();
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
    },
    demote(sentAt) {
      // Calls in flight together (one batch) fail together: one failure, not one per call.
      if (sentAt < demotedAt) return;
      failures++;
      demotedAt = Date.now();
      demotedUntil = demotedAt + Math.min(opts.demoteMs * 2 ** (failures - 1), 10 * 60_000);
    },
    succeeded() {
      failures = 0;
      demotedUntil = 0;
    },
    demotedUntil: () => demotedUntil,
    failures: () => failures,
  };
}
