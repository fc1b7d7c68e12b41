import type { Pool } from '@tributary/db';
import { backfillBlocksRemaining } from '@tributary/db/chain';
import { Counter, Gauge, type Registry } from '@tributary/runtime';

export interface RequestedBackfillMetrics {
  /** A chunk of a request was acknowledged by Kafka. */
  republished(blocks: number): void;
}

/**
 * Operators' backfill requests as Prometheus sees them: the blocks still to re-publish over the
 * chain's open requests (read from PostgreSQL when scraped, so it also moves when an operator
 * requests or cancels one; a read that fails or is late keeps the last value, a scrape never fails
 * for it) and the blocks re-published for them.
 */
export function createRequestedBackfillMetrics(deps: {
  metrics: Registry;
  pool: Pool;
  chainId: number;
}): RequestedBackfillMetrics {
  const labels = { chain_id: String(deps.chainId) };
  new Gauge({
    name: 'tributary_follower_backfill_requested_blocks_remaining',
    help: "Blocks still to re-publish over the chain's open backfill requests (pnpm admin backfill)",
    labelNames: ['chain_id'],
    registers: [deps.metrics],
    async collect() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), 1_500);
      });
      const read = backfillBlocksRemaining(deps.pool, deps.chainId).catch(() => undefined);
      const n = await Promise.race([read, late]);
      clearTimeout(timer);
      if (n !== undefined) this.set(labels, n);
    },
  });
  const republished = new Counter({
    name: 'tributary_follower_backfill_requested_blocks_total',
    help: 'Blocks re-published for backfill requests (acknowledged by Kafka)',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  return {
    republished: (blocks) => republished.inc(labels, blocks),
  };
}
