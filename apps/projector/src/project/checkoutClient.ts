import type { Pool, PoolClient } from '@tributary/db';

/**
 * A pooled client for a transaction, with an `error` listener while it is checked out: the pool
 * listens only to idle clients, and a connection that PostgreSQL terminates between two queries
 * (a restart, `pg_terminate_backend`) would otherwise raise an unhandled `error` event and end the
 * process. The failure reaches the caller through its next query instead. `release(err)` hands a
 * broken client back to the pool, which then closes it.
 */
export async function checkoutClient(
  pool: Pool,
  onError: (err: Error) => void,
): Promise<{ client: PoolClient; release: (err?: Error) => void }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const listener = (err: Error) => {
    broken = err;
    onError(err);
  };
  client.on('error', listener);
  let released = false;
  return {
    client,
    release(err) {
      if (released) return;
      released = true;
      client.removeListener('error', listener);
      client.release(err ?? broken);
    },
  };
}
