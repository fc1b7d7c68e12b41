import { type Logger, createOutageLog } from '@tributary/runtime';

export interface Outage {
  /** A call to the dependency failed: logged at the first failure of an outage only. */
  failed(err: unknown): void;
  /** A call succeeded: ends the outage (logged once, with how long it lasted). */
  recovered(): void;
  /** A readiness check: throws, saying what is missing, while the outage lasts. */
  check(): void;
}

/**
 * One dependency's outage as the operator sees it: the shared outage log (a line when it starts,
 * one when it ends), and a readiness check that names it with its last error meanwhile.
 */
export function createOutage(opts: { what: string; logger: Logger; now?: () => number }): Outage {
  const now = opts.now ?? Date.now;
  const log = createOutageLog(opts.logger, opts.what, now);
  let since: number | undefined;
  let failures = 0;
  let last = '';
  return {
    failed(err) {
      log.failed(err);
      failures++;
      last = err instanceof Error ? err.message : String(err);
      since ??= now();
    },
    recovered() {
      log.ok();
      since = undefined;
      failures = 0;
    },
    check() {
      if (since === undefined) return;
      const s = Math.round((now() - since) / 1000);
      throw new Error(`${opts.what} unavailable for ${s} s (${failures} failures): ${last}`);
    },
  };
}
