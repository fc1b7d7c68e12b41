import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Health } from './createHealth.ts';

/** What the watch reads of a pg pool (a `pg.Pool`). */
export interface WatchedPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  query(sql: string): Promise<unknown>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * The one watch every service keeps on its PostgreSQL pool:
 * - `tributary_db_pool_connections{state}` (open, idle) and `tributary_db_pool_waiting_requests`
 *   (queries waiting for a free connection, the sign of a pool too small for the load);
 * - an idle connection that PostgreSQL closes (a restart) is said (`onError`, or an error line);
 *   the pool replaces it;
 * - readiness check `postgres`: a `SELECT 1`, then `afterPing` (what else the service judges).
 */
export function watchPool(
  service: { metrics: Registry; health: Health; logger: Logger },
  pool: WatchedPool,
  opts: { onError?: (err: Error) => void; afterPing?: () => void } = {},
): void {
  const registry = service.metrics;
  pool.on('error', opts.onError ?? ((err) => service.logger.error({ err }, 'idle PostgreSQL client failed')));
  service.health.addCheck('postgres', async () => {
    await pool.query('SELECT 1');
    opts.afterPing?.();
  });
  new Gauge({
    name: 'tributary_db_pool_connections',
    help: 'PostgreSQL connections of the process pool, open and idle',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'open' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
    },
  });
  new Gauge({
    name: 'tributary_db_pool_waiting_requests',
    help: 'Queries waiting for a free PostgreSQL connection of the process pool',
    registers: [registry],
    collect() {
      this.set(pool.waitingCount);
    },
  });
}
