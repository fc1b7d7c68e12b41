import { Gauge, type Registry } from 'prom-client';

/** What the gauges read of a pg pool (a `pg.Pool`). */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * `tributary_db_pool_connections{state}` (open, idle) and `tributary_db_pool_waiting_requests`:
 * queries waiting for a free connection, the sign of a pool too small for the load.
 */
export function createPoolGauges(registry: Registry, pool: PoolCounts): void {
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
