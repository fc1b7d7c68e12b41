import type { Pool } from '@tributary/db';
import { countDeliveriesByStatus, countStreamsByStatus } from '@tributary/db/streams';
import { Counter, Gauge, Histogram, type Registry } from '@tributary/runtime';
import type { Queue } from 'bullmq';
import type { MaintenancePass } from '../retention/createDeliveryMaintenance.ts';

/** The outcome of one attempt that reached the receiver (or tried to): the label of the attempt metrics. */
type AttemptOutcome = 'delivered' | 'retry' | 'gave_up' | 'held';

export interface SenderMetrics {
  /** One POST made, with its outcome and how long it took. */
  attempt(outcome: AttemptOutcome, latencyMs: number): void;
  /** What a retention pass made, dropped, moved and removed. */
  retention(pass: MaintenancePass): void;
  /** One relay pass over the pending deliveries: its time and the rows it walked. */
  relayPass(p: { seconds: number; walked: number }): void;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

/**
 * What an operator asks of the sender: attempts and their latency by outcome; and, read when
 * scraped, the queue by state, pending / held / failed deliveries, streams by status and the
 * endpoints with no free slot. A source that cannot be read keeps its last values (a scrape never
 * fails for it; `/readyz` says what is down).
 */
export function createSenderMetrics(
  registry: Registry,
  sources: { queue: Queue; pool: Pool; saturatedEndpoints: () => number },
): SenderMetrics {
  const attempts = new Counter({
    name: 'tributary_webhook_attempts_total',
    help: 'Webhook POSTs by outcome: delivered (2xx), retry (scheduled again), gave_up (retry schedule used up), held (the stream went to error)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tributary_webhook_attempt_duration_seconds',
    help: 'Time from the request to the receiver answer (or the timeout / connection error), by outcome',
    labelNames: ['outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'tributary_webhook_queue_jobs',
    help: 'Jobs of the webhook queue (BullMQ) by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await sources.queue.getJobCounts(...QUEUE_STATES).catch(() => undefined);
      if (counts) for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
  const oldestPending = new Gauge({
    name: 'tributary_deliveries_oldest_pending_seconds',
    help: 'Age of the oldest pending delivery (0: none pending)',
    registers: [registry],
  });
  new Gauge({
    name: 'tributary_deliveries',
    help: 'Deliveries by status: pending (to be sent), held (stream in error), failed (retry schedule used up)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const c = await countDeliveriesByStatus(sources.pool).catch(() => undefined);
      if (!c) return;
      this.set({ status: 'pending' }, c.pending);
      this.set({ status: 'held' }, c.held);
      this.set({ status: 'failed' }, c.failed);
      oldestPending.set(c.oldestPendingAt ? (Date.now() - c.oldestPendingAt.getTime()) / 1000 : 0);
    },
  });
  new Gauge({
    name: 'tributary_streams',
    help: 'Streams by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const byStatus = await countStreamsByStatus(sources.pool).catch(() => undefined);
      if (!byStatus) return;
      for (const status of ['active', 'paused', 'error', 'terminated'])
        this.set({ status }, byStatus[status] ?? 0);
    },
  });
  new Gauge({
    name: 'tributary_webhook_endpoints_saturated',
    help: 'Webhook endpoints with no free request slot in this process (ENDPOINT_CONCURRENCY or the slow-endpoint bound)',
    registers: [registry],
    collect() {
      this.set(sources.saturatedEndpoints());
    },
  });
  const days = new Counter({
    name: 'tributary_retention_days_total',
    help: 'Day partitions of the deliveries made ahead (created) and dropped once their time was up (dropped)',
    labelNames: ['change'],
    registers: [registry],
  });
  const removed = new Counter({
    name: 'tributary_retention_deliveries_removed_total',
    help: 'Deliveries removed by retention (with a dropped day, or expired from the kept rows), by status',
    labelNames: ['status'],
    registers: [registry],
  });
  const kept = new Counter({
    name: 'tributary_retention_deliveries_kept_total',
    help: 'Deliveries of a dropped day kept (pending, or held and failed not expired yet), by status',
    labelNames: ['status'],
    registers: [registry],
  });
  // A pass's time grows with the pending rows, and with the dead index entries that rows pending
  // since the day's partition was last vacuumed leave behind: the operator sees it here.
  const relayPass = new Histogram({
    name: 'tributary_relay_pass_duration_seconds',
    help: 'Time of one relay pass over the pending deliveries (checking that each names a job in Redis)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const relayWalked = new Gauge({
    name: 'tributary_relay_pass_pending_rows',
    help: 'Pending deliveries the last relay pass walked',
    registers: [registry],
  });
  return {
    relayPass({ seconds, walked }) {
      relayPass.observe(seconds);
      relayWalked.set(walked);
    },
    attempt(outcome, latencyMs) {
      attempts.inc({ outcome });
      duration.observe({ outcome }, latencyMs / 1000);
    },
    retention(pass) {
      days.inc({ change: 'created' }, pass.created.length);
      days.inc({ change: 'dropped' }, pass.dropped.length);
      const gone = { ...pass.expired };
      for (const d of pass.dropped) {
        gone.delivered += d.removed.delivered;
        gone.held += d.removed.held;
        gone.failed += d.removed.failed;
        for (const [status, n] of Object.entries(d.kept)) kept.inc({ status }, n);
      }
      for (const [status, n] of Object.entries(gone)) removed.inc({ status }, n);
    },
  };
}
