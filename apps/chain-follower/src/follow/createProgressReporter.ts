import { Counter, Gauge, Histogram, type Logger, type Registry } from '@tributary/runtime';

export interface ProgressReporter {
  published(opts: {
    from: number;
    to: number;
    logs: number;
    head: number;
    mode: 'backfill' | 'head';
    /** The last published block's timestamp (Unix seconds): how far behind real time the checkpoint is. */
    lastTimestamp?: number;
    /** The eth_getLogs range the follower uses now (blocks). */
    rangeBlocks?: number;
  }): void;
  lag(head: number, checkpoint: number): void;
  reorg(depth: number): void;
}

/**
 * Backfill progress as structured log lines (blocks/s, logs/s, ETA) at most every intervalMs,
 * and the lag (head - checkpoint) as a Prometheus gauge.
 */
export function createProgressReporter(deps: {
  logger: Logger;
  metrics: Registry;
  chainId: number;
  intervalMs: number;
}): ProgressReporter {
  const labels = { chain_id: String(deps.chainId) };
  const lagGauge = new Gauge({
    name: 'tributary_follower_lag_blocks',
    help: 'chain head minus checkpoint',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const blocksCounter = new Counter({
    name: 'tributary_follower_blocks_published_total',
    help: 'blocks published (new or confirmed-at-once)',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const logsCounter = new Counter({
    name: 'tributary_follower_logs_published_total',
    help: 'logs published',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const reorgCounter = new Counter({
    name: 'tributary_follower_reorgs_total',
    help: 'reorgs handled',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const headGauge = new Gauge({
    name: 'tributary_follower_head_block',
    help: "The node's latest block",
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const checkpointGauge = new Gauge({
    name: 'tributary_follower_checkpoint_block',
    help: 'The last block published (the checkpoint)',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const lagSecondsGauge = new Gauge({
    name: 'tributary_follower_lag_seconds',
    help: "Now minus the checkpoint block's timestamp",
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const rangeGauge = new Gauge({
    name: 'tributary_follower_range_blocks',
    help: 'The eth_getLogs block range the follower uses now (adapted to the node)',
    labelNames: ['chain_id'],
    registers: [deps.metrics],
  });
  const reorgDepth = new Histogram({
    name: 'tributary_follower_reorg_depth_blocks',
    help: 'Depth of the reorgs handled (orphaned blocks)',
    labelNames: ['chain_id'],
    buckets: [1, 2, 3, 5, 10, 20, 50, 100, 200],
    registers: [deps.metrics],
  });
  let windowStart = Date.now();
  let windowBlocks = 0;
  let windowLogs = 0;
  return {
    published({ from, to, logs, head, mode, lastTimestamp, rangeBlocks }) {
      const blocks = to - from + 1;
      if (lastTimestamp !== undefined)
        lagSecondsGauge.set(labels, Math.max(0, Date.now() / 1000 - lastTimestamp));
      if (rangeBlocks !== undefined) rangeGauge.set(labels, rangeBlocks);
      blocksCounter.inc(labels, blocks);
      logsCounter.inc(labels, logs);
      windowBlocks += blocks;
      windowLogs += logs;
      const elapsed = Date.now() - windowStart;
      if (mode === 'head') {
        deps.logger.info({ block: to, from, logs, head }, 'published block');
      }
      if (elapsed >= deps.intervalMs) {
        const blocksPerSec = (windowBlocks * 1000) / elapsed;
        const remaining = Math.max(0, head - to);
        deps.logger.info(
          {
            mode,
            block: to,
            head,
            remaining,
            blocksPerSec: Math.round(blocksPerSec * 10) / 10,
            logsPerSec: Math.round((windowLogs * 1000) / elapsed),
            etaSec: blocksPerSec > 0 ? Math.round(remaining / blocksPerSec) : null,
          },
          'follower progress',
        );
        windowStart = Date.now();
        windowBlocks = 0;
        windowLogs = 0;
      }
    },
    lag(head, checkpoint) {
      lagGauge.set(labels, Math.max(0, head - checkpoint));
      headGauge.set(labels, head);
      checkpointGauge.set(labels, checkpoint);
    },
    reorg(depth) {
      reorgCounter.inc(labels);
      reorgDepth.observe(labels, depth);
    },
  };
}
