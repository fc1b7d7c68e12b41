import pg from 'pg';

/**
 * PostgreSQL's limits on each session of a pool. Without them a statement stuck on a lock, or a
 * transaction its process left open, holds a connection (and its locks) without end.
 */
export interface PoolTimeouts {
  /** Longest a statement runs before PostgreSQL cancels it (SQLSTATE 57014, a transient failure); 0: none. */
  statementTimeoutMs: number;
  /**
   * Longest a transaction may wait between two of its statements before PostgreSQL ends the
   * session (and rolls it back); 0: none.
   */
  idleInTransactionTimeoutMs: number;
}

/**
 * For pools whose service sets nothing (tests, the command-line tools): a minute for any one
 * statement or wait inside a transaction. Services set their own (DATABASE_STATEMENT_TIMEOUT_MS).
 */
const POOL_TIMEOUT_DEFAULTS: Readonly<PoolTimeouts> = {
  statementTimeoutMs: 60_000,
  idleInTransactionTimeoutMs: 60_000,
};

/**
 * A pg pool with the project's settings. An idle client that fails (PostgreSQL restarted, the
 * connection terminated by an administrator: 57P01) is dropped by the pool, which connects anew
 * on the next query; pg reports it as an `error` event on the pool, which without a listener
 * becomes an uncaught exception that kills the process. So every pool has one: services add
 * their own listener to log it, and a failure that matters surfaces on the next query anyway.
 * (pool.end() resolves before its clients have finished closing: a database dropped right after
 * terminates them, which is how test runs met that crash.) Checked-out clients get one too.
 */
export function createPool(opts: {
  connectionString: string;
  /** Connections at most (each service: DATABASE_POOL_SIZE). */
  max?: number;
  application?: string;
  /** Session limits of every connection (defaults: POOL_TIMEOUT_DEFAULTS). */
  timeouts?: Partial<PoolTimeouts>;
}): pg.Pool {
  const timeouts = { ...POOL_TIMEOUT_DEFAULTS, ...opts.timeouts };
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    // Unset: pg's own default (10).
    ...(opts.max !== undefined ? { max: opts.max } : {}),
    application_name: opts.application ?? 'tributary',
    idleTimeoutMillis: 30_000,
    // Sent with the connection's start-up packet: no round trip per query. pg sends nothing for 0
    // (PostgreSQL's own default, no limit).
    statement_timeout: timeouts.statementTimeoutMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
  });
  pool.on('error', () => undefined);
  // A checked-out client has no pool listener: a connection that dies between two of its queries
  // (a transaction's, a lock held across awaits) emitted an `error` nobody heard, and the process
  // died of it (seen when PostgreSQL was SIGKILLed under load). The client's next query fails and
  // reports it; pg-pool drops a client that is no longer queryable when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
