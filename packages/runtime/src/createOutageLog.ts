import type { Logger } from 'pino';

export interface OutageLog {
  /** A failure: logged when an outage starts, counted while it lasts. */
  failed(err: unknown, fields?: object): void;
  /** A success: ends the outage, if any, with one line saying how long it lasted. */
  ok(): void;
  /** Whether the last attempt failed. */
  down(): boolean;
}

/**
 * Logs a dependency's outage once, not once per failed call: the first failure at warn with the
 * error, then a count, and one line when a call succeeds again. Services call into PostgreSQL,
 * Redis and Kafka hundreds of times a second; a restart of one of them must not bury the log.
 */
export function createOutageLog(logger: Logger, what: string, now: () => number = Date.now): OutageLog {
  let since: number | undefined;
  let failures = 0;
  return {
    failed(err, fields = {}) {
      failures++;
      if (since !== undefined) return;
      since = now();
      logger.warn({ ...fields, dependency: what, err }, `${what} failing: retrying with backoff`);
    },
    ok() {
      if (since === undefined) return;
      logger.info({ dependency: what, failures, outageMs: now() - since }, `${what} back`);
      since = undefined;
      failures = 0;
    },
    down: () => since !== undefined,
  };
}
