import type { Server } from 'node:net';
import { sleep } from '@tributary/runtime';

export interface PublicListener {
  /** A readiness check: throws, saying why, until the server listens on the public port. */
  check(): void;
  /**
   * Listens on the public port. While another process holds it (a predecessor still draining on
   * the same host), tries again every `retryEveryMs` until `retryForMs` have passed, as nginx does
   * with its bind; any other error, or the port still taken then, rejects. Resolves true once it
   * listens, false when `signal` aborted while it waited (the service is stopping: not an error).
   */
  listen(server: Server): Promise<boolean>;
}

/**
 * The gateway's public port and what readiness says of it. The ops port answers first, while the
 * rest is built: ready must mean that the public port takes requests, or a balancer (or a test)
 * that trusts /readyz sends its first requests to a port nobody listens on.
 */
export function createPublicListener(opts: {
  host: string;
  port: number;
  retryForMs: number;
  retryEveryMs?: number;
  signal?: AbortSignal;
  /** Called once per failed attempt while the port is taken (the caller logs it). */
  onTaken?: (attempt: number, err: Error) => void;
}): PublicListener {
  const where = `${opts.host}:${opts.port}`;
  const retryEveryMs = opts.retryEveryMs ?? 500;
  let state: string | undefined = `not listening on ${where} yet`;
  const stopped = () => {
    state = `stopped while waiting for ${where}`;
    return false;
  };
  return {
    check() {
      if (state !== undefined) throw new Error(state);
    },
    async listen(server) {
      const deadline = Date.now() + opts.retryForMs;
      for (let attempt = 1; ; attempt++) {
        try {
          await listenOnce(server, opts.port, opts.host);
          state = undefined;
          return true;
        } catch (err) {
          const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
          if (taken && opts.signal?.aborted) return stopped();
          if (!taken || Date.now() + retryEveryMs > deadline) {
            state = `cannot listen on ${where}: ${(err as Error).message}`;
            throw err;
          }
          state = `${where} is taken by another process; trying again every ${retryEveryMs} ms until ${new Date(deadline).toISOString()}`;
          opts.onTaken?.(attempt, err as Error);
          await sleep(retryEveryMs, opts.signal);
          if (opts.signal?.aborted) return stopped();
        }
      }
    },
  };
}

function listenOnce(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
