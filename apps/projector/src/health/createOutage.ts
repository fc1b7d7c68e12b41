import type { Logger } from '@tributary/runtime';

export interface Outage {
  /** A call to the dependency failed: logged at the first failure of an outage only. */
  failed(err: unknown): void;
  /** A call succeeded: ends the outage (logged once, with how long it lasted). */
  recovered(): void;
  /** A readiness check: throws, saying what is missing, while the outage lasts. */
  check(): void;
}

/** One dependency's outage as the operator sees it: one line when it starts, one when it ends. */
export function createOutage(opts: { what: string; logger: Logger; now?: () => number }): Outage {
  const now = opts.now ?? Date.now;
  let since: number | undefined;
  let failures = 0;
  let last = '';
  return {
    failed(err) {
      failures++;
      last = err instanceof Error ? err.message : String(err);
      if (since !== undefined) return;
      since = now();
      opts.logger.error({ what: opts.what, err }, `${opts.what} unavailable: retrying with backoff`);
    },
    recovered() {
      if (since === undefined) return;
      opts.logger.info({ what: opts.what, ms: now() - since, failures }, `${opts.what} available again`);
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
