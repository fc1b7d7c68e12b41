import { Counter, Gauge, Histogram, type Registry } from '@tributary/runtime';

export interface MatcherMetrics {
  /** One block event evaluated and its deliveries stored: its type and how long it took. */
  blockEvaluated(type: 'new' | 'confirmed' | 'removed', seconds: number): void;
  /** The (stream, block) matches of one block event, and the delivery rows it created by kind. */
  stored(matches: number, created: { kind: 'unconfirmed' | 'confirmed' | 'removal' }[]): void;
  /**
   * Streams reloaded from PostgreSQL, by what found their change: its change event, the check
   * before a block (the event had not come yet), or the periodic reconcile (the event was lost).
   */
  streamsReloaded(cause: 'change-event' | 'before-block' | 'reconcile', count: number): void;
  /** Where the gauge of streams in memory by status reads its counts. */
  countStreams(source: () => Map<string, number>): void;
  /** A block read from the node what it lacked of what its streams read, or was found orphaned meanwhile. */
  blockCompleted(outcome: 'completed' | 'orphaned'): void;
  /** Where the gauge of how long the current block has waited for the node reads its seconds. */
  contentsWait(source: () => number): void;
  /** A stream went over its time budget per block and is no longer evaluated. */
  streamSuspended(streamId: string): void;
  /** One chunk of a per-stream backfill evaluated: its blocks by source, and the webhooks it stored (or counted). */
  backfillChunk(c: { blocks: Record<'tables' | 'node', number>; webhooks: number; dryRun: boolean }): void;
}

/** What an operator asks of the matcher: time per block, matches, deliveries created. */
export function createMatcherMetrics(registry: Registry): MatcherMetrics {
  const blockSeconds = new Histogram({
    name: 'tributary_matcher_block_duration_seconds',
    help: 'Time to evaluate one block event against the streams and store its deliveries, by event type',
    labelNames: ['type'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const matches = new Counter({
    name: 'tributary_matcher_matches_total',
    help: 'Streams matched by block events (one per stream and block event)',
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'tributary_matcher_deliveries_created_total',
    help: 'Delivery rows created (not found from an earlier run of the same block), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  for (const kind of ['unconfirmed', 'confirmed', 'removal']) deliveries.inc({ kind }, 0);
  const reloads = new Counter({
    name: 'tributary_matcher_stream_reloads_total',
    help: 'Streams reloaded from PostgreSQL, by what found the change (change-event, before-block, reconcile)',
    labelNames: ['cause'],
    registers: [registry],
  });
  for (const cause of ['change-event', 'before-block', 'reconcile']) reloads.inc({ cause }, 0);
  let streamCounts: () => Map<string, number> = () => new Map();
  new Gauge({
    name: 'tributary_matcher_streams',
    help: 'Streams this matcher instance evaluates, by status (active; error: evaluated, webhooks held)',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      const counts = streamCounts();
      for (const status of ['active', 'error']) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  const completions = new Counter({
    name: 'tributary_matcher_blocks_completed_total',
    help: 'Blocks that lacked a part their streams read (transactions, internal transactions) and had it read from the node (completed), or were orphaned meanwhile',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['completed', 'orphaned']) completions.inc({ outcome }, 0);
  let waitSeconds: () => number = () => 0;
  new Gauge({
    name: 'tributary_matcher_block_contents_wait_seconds',
    help: 'How long the block being evaluated has waited for the node to give a part its streams read (0: none waits)',
    registers: [registry],
    collect() {
      this.set(waitSeconds());
    },
  });
  const suspended = new Counter({
    name: 'tributary_matcher_streams_suspended_total',
    help: 'Streams no longer evaluated because one block took them longer than STREAM_BLOCK_BUDGET_MS',
    registers: [registry],
  });
  const backfillBlocks = new Counter({
    name: 'tributary_matcher_backfill_blocks_total',
    help: 'Blocks evaluated for per-stream backfills, by where they were read from (tables, node)',
    labelNames: ['source'],
    registers: [registry],
  });
  for (const source of ['tables', 'node']) backfillBlocks.inc({ source }, 0);
  const backfillWebhooks = new Counter({
    name: 'tributary_matcher_backfill_webhooks_total',
    help: 'Webhooks per-stream backfills stored for delivery (dry_run="true": counted only)',
    labelNames: ['dry_run'],
    registers: [registry],
  });
  for (const dryRun of ['true', 'false']) backfillWebhooks.inc({ dry_run: dryRun }, 0);
  return {
    backfillChunk({ blocks, webhooks, dryRun }) {
      for (const [source, n] of Object.entries(blocks)) backfillBlocks.inc({ source }, n);
      backfillWebhooks.inc({ dry_run: String(dryRun) }, webhooks);
    },
    streamSuspended() {
      suspended.inc();
    },
    blockCompleted(outcome) {
      completions.inc({ outcome });
    },
    contentsWait(source) {
      waitSeconds = source;
    },
    blockEvaluated(type, seconds) {
      blockSeconds.observe({ type }, seconds);
    },
    stored(n, created) {
      matches.inc(n);
      for (const c of created) deliveries.inc({ kind: c.kind });
    },
    streamsReloaded(cause, count) {
      if (count > 0) reloads.inc({ cause }, count);
    },
    countStreams(source) {
      streamCounts = source;
    },
  };
}
