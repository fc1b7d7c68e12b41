import type { Pool } from '@tributary/db';
import {
  type DeliveryToSend,
  countQueuedDeliveries,
  getDeliveriesToSend,
  recordAttempt,
  recordDeliveredMany,
  recordStreamFailures,
  recordStreamHealth,
  setDeliveryStatus,
} from '@tributary/db/streams';
import {
  type DeliveryOutcome,
  type WebhookPoster,
  redactUrl,
  bodyForAttempt,
  webhookHeaders,
} from '@tributary/webhooks';
import type { Logger } from 'pino';
import { createBatcher } from './createBatcher.ts';
import { type EndpointSlots, endpointOf } from './createEndpointSlots.ts';
import { createQueueSizes } from './createQueueSizes.ts';
import type { StreamRateLimiter } from './createStreamRateLimiter.ts';

/** An endpoint whose requests lately took a second (or half the timeout, when shorter) is slow. */
export const slowEndpointMs = (timeoutMs: number) => Math.min(1_000, timeoutMs / 2);

export interface AttemptDeps {
  pool: Pool;
  logger: Logger;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  /** Sends each attempt, within the operator's policy of where webhooks may go. */
  poster: WebhookPoster;
  successRateThreshold: number;
  /** Tells the matchers at once that a stream changed status (it now holds its webhooks); never throws. */
  onStreamStatusChanged: (streamId: string) => void;
  /** One POST made: its outcome and latency (for the metrics). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'gave_up' | 'held', latencyMs: number) => void;
  /** Turns under each stream's maxRequestsPerSecond, shared by every sender. */
  rateLimiter: StreamRateLimiter;
  /** A turn that could not be read (Redis away): the delivery waits, it is never sent unchecked. */
  onRateLimiterError?: (err: unknown) => void;
  /** An ordered stream's numbered delivery was settled (delivered, or failed for good): the next one's turn. */
  onSequenceSettled?: (streamId: string, sequence: number) => Promise<void>;
}

/** How long a delivery waits when its stream's turn cannot be read. */
const TURN_UNKNOWN_WAIT_MS = 1_000;

/** The reads and writes of the success path, batched across concurrent attempts. */
export interface DeliveryStore {
  load(deliveryId: string): Promise<DeliveryToSend | undefined>;
  delivered(a: { deliveryId: string; statusCode: number; latencyMs: number }): Promise<void>;
  /** One failed attempt of the stream: its health afterwards, `changed` for the one attempt that moved it. */
  failed(streamId: string): Promise<{ status: string; changed: boolean } | undefined>;
  /** The stream's pending and held deliveries (`x-queue-size`), at most `queueSizeMaxAgeMs` old. */
  queueSize(streamId: string): Promise<number>;
}

export function createDeliveryStore(
  pool: AttemptDeps['pool'],
  opts: { threshold: number; queueSizeMaxAgeMs: number; onError: (err: unknown) => void },
): DeliveryStore {
  const { threshold } = opts;
  const failed = createBatcher(async (streamIds: string[]) => {
    const counts = new Map<string, number>();
    for (const id of streamIds) counts.set(id, (counts.get(id) ?? 0) + 1);
    const results = new Map<string, { status: string; changed: boolean } | undefined>();
    for (const [id, n] of counts) results.set(id, await recordStreamFailures(pool, id, n, threshold));
    // The status change is announced once per stream, whichever attempt of the batch carries it.
    const announced = new Set<string>();
    return streamIds.map((id) => {
      const r = results.get(id);
      if (!r) return undefined;
      const changed = r.changed && !announced.has(id);
      announced.add(id);
      return { status: r.status, changed };
    });
  });
  const load = createBatcher(async (ids: string[]) => {
    const found = await getDeliveriesToSend(pool, ids);
    return ids.map((id) => found.get(id));
  });
  const delivered = createBatcher(
    async (list: { deliveryId: string; statusCode: number; latencyMs: number }[]) => {
      await recordDeliveredMany(pool, list);
      return list.map(() => undefined);
    },
  );
  const queueSize = createQueueSizes(
    (streamIds) => countQueuedDeliveries(pool, streamIds),
    opts.queueSizeMaxAgeMs,
    opts.onError,
  );
  return { load, delivered, failed, queueSize };
}

/**
 * One attempt of one delivery. The body is the stored one with `retries` set to the attempt
 * number (so each retry is signed anew); `webhook-id` is the delivery id on every attempt.
 * `jobId`: the job making the attempt (only the job the row names may). `inBatch`: the attempt is one member of a batch job, which ends only when every member has its
 * outcome, so a member whose endpoint is known to be slow is handed off to a job of its own
 * instead of holding the batch up to the timeout.
 */
export async function attemptDelivery(
  deps: AttemptDeps & { store: DeliveryStore; slots: EndpointSlots },
  deliveryId: string,
  attemptsMade: number,
  inBatch = false,
  jobId?: string,
): Promise<DeliveryOutcome> {
  const d = await deps.store.load(deliveryId);
  if (!d) return { outcome: 'dropped', reason: 'delivery or stream deleted' };
  if (d.status !== 'pending') return { outcome: 'dropped', reason: `delivery is ${d.status}` };
  // One job owns a delivery at a time (the one its row names): a batch run again after its
  // members went on alone, or a job the relay replaced, does not send it a second time.
  if (jobId !== undefined && d.jobId !== null && d.jobId !== jobId)
    return { outcome: 'dropped', reason: `delivery belongs to job ${d.jobId}` };
  if (d.streamStatus === 'terminated') {
    await setDeliveryStatus(deps.pool, d.id, 'failed');
    return { outcome: 'dropped', reason: 'stream terminated' };
  }
  if (d.streamStatus !== 'active') {
    await setDeliveryStatus(deps.pool, d.id, 'held');
    return { outcome: 'held' };
  }
  // An ordered stream's webhook goes only after the one before it got its 2xx (or failed for good).
  if (d.waitsForPrevious) return { outcome: 'waits-turn', previous: (d.sequence ?? 1) - 1 };

  if (d.maxRequestsPerSecond !== null) {
    let wait: number;
    try {
      wait = await deps.rateLimiter.turn(d.streamId, d.id, d.maxRequestsPerSecond);
    } catch (err) {
      deps.onRateLimiterError?.(err);
      wait = TURN_UNKNOWN_WAIT_MS;
    }
    if (wait > 0) return { outcome: 'throttled', afterMs: wait };
  }

  const endpoint = endpointOf(d.webhookUrl);
  const slowMs = slowEndpointMs(deps.timeoutMs);
  if (inBatch && deps.slots.isSlow(endpoint, slowMs)) return { outcome: 'handed-off', endpoint };
  // A batch member waits a little for a slot of a busy (but fast) endpoint; a job of its own is
  // parked at once, without holding anything.
  const gotSlot = inBatch ? await deps.slots.acquire(endpoint, slowMs) : deps.slots.tryAcquire(endpoint);
  if (!gotSlot) return { outcome: 'postponed', endpoint };
  const queueSize = await deps.store.queueSize(d.streamId);
  const slotTaken = performance.now();
  // The stored body has retries 0 and no sequence: a first attempt of an unnumbered one sends it as it is.
  const body = bodyForAttempt(d.body, attemptsMade, d.sequence);
  const result = await deps.poster
    .post({
      url: d.webhookUrl,
      body,
      headers: webhookHeaders({ id: d.id, body, secrets: d.secrets, queueSize }),
      timeoutMs: deps.timeoutMs,
    })
    .finally(() => deps.slots.release(endpoint, performance.now() - slotTaken));

  if (result.ok) {
    deps.onAttempt?.('delivered', result.latencyMs);
    await deps.store.delivered({
      deliveryId: d.id,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
    });
    // A healthy stream (100) has nothing to recover: its row is not written on the hot path.
    if (d.successRate < 100) await recordStreamHealth(deps.pool, d.streamId, true, deps.successRateThreshold);
    if (d.sequence !== null) await deps.onSequenceSettled?.(d.streamId, d.sequence);
    if (deps.logger.isLevelEnabled('debug'))
      deps.logger.debug(
        {
          deliveryId: d.id,
          streamId: d.streamId,
          attempt: attemptsMade,
          latencyMs: result.latencyMs,
          statusCode: result.statusCode,
        },
        'webhook delivered',
      );
    return { outcome: 'delivered', statusCode: result.statusCode };
  }

  const health = await deps.store.failed(d.streamId);
  if (health?.changed) deps.onStreamStatusChanged(d.streamId);
  const exhausted = attemptsMade >= deps.retryScheduleMs.length;
  const inError = health?.status === 'error';
  const newStatus = exhausted ? 'failed' : inError ? 'held' : 'pending';
  await recordAttempt(deps.pool, {
    deliveryId: d.id,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error,
    newStatus,
  });
  deps.logger.info(
    {
      deliveryId: d.id,
      streamId: d.streamId,
      // Which endpoint failed, without the credentials its URL may carry.
      url: redactUrl(d.webhookUrl),
      attempt: attemptsMade,
      latencyMs: result.latencyMs,
      error: result.error,
      newStatus,
    },
    'webhook attempt failed',
  );
  deps.onAttempt?.(exhausted ? 'gave_up' : inError ? 'held' : 'retry', result.latencyMs);
  if (exhausted) {
    if (d.sequence !== null) await deps.onSequenceSettled?.(d.streamId, d.sequence);
    return { outcome: 'gave-up', error: result.error };
  }
  if (inError) return { outcome: 'held' };
  return { outcome: 'retry', after: deps.retryScheduleMs[attemptsMade] ?? 0, error: result.error };
}
