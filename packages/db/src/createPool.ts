import pg from 'pg';

// numeric(78,0) and bigint columns come back as strings (pg's default); callers convert with BigInt.
export function createPool(opts: { connectionString: string; max?: number; application?: string }): pg.Pool {
  return new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    application_name: opts.application ?? 'tributary',
    idleTimeoutMillis: 30_000,
  });
}

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
