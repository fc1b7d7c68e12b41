import type { Logger } from '@tributary/runtime';
import { sleep } from '@tributary/runtime';
import { createPublicClient, webSocket } from 'viem';

export interface HeadWatcher {
  /** Resolves when a newHeads notification arrives or the poll interval passed, whichever first. */
  waitForNewHead(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/**
 * Head notifications: WebSocket newHeads when a WS URL is given (the poll interval still runs as
 * a safety net), else plain polling every pollIntervalMs.
 */
export function createHeadWatcher(opts: {
  pollIntervalMs: number;
  wsUrl?: string;
  logger: Logger;
}): HeadWatcher {
  let wake: (() => void) | undefined;
  let unwatch: (() => void) | undefined;
  let wsClient: ReturnType<typeof createPublicClient> | undefined;
  if (opts.wsUrl) {
    wsClient = createPublicClient({ transport: webSocket(opts.wsUrl, { reconnect: true }) });
    unwatch = wsClient.watchBlockNumber({
      emitOnBegin: false,
      onBlockNumber: () => wake?.(),
      onError: (err) => opts.logger.warn({ err: err.message }, 'newHeads subscription error'),
    });
  }
  return {
    async waitForNewHead(signal) {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      wake = () => controller.abort();
      try {
        await sleep(opts.pollIntervalMs, controller.signal);
      } finally {
        wake = undefined;
        signal.removeEventListener('abort', onAbort);
      }
    },
    async close() {
      unwatch?.();
      await (wsClient?.transport as { getRpcClient?: () => Promise<{ close(): void }> } | undefined)
        ?.getRpcClient?.()
        .then((c) => c.close())
        .catch(() => {});
    },
  };
}
