import {
  type Pool,
  type DeliveryToSend,
  getDeliveriesToSend,
  recordAttempt,
  recordDeliveredMany,
  recordStreamFailures,
  recordStreamHealth,
  setDeliveryStatus,
} from '@tributary/db';
import { type DeliveryOutcome, postWebhook, webhookHeaders, withRetries } from '@tributary/webhooks';
import type { Logger } from 'pino';
import { createBatcher } from './createBatcher.ts';
import { type EndpointSlots, endpointOf } from './createEndpointSlots.ts';

export interface AttemptDeps {
  pool: Pool;
  logger: Logger;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  allowPrivate: boolean;
  successRateThreshold: number;
  /** Tells the matchers that a stream changed status (it now holds its webhooks). */
  onStreamStatusChanged: (streamId: string) => Promise<void>;
}

/** The reads and writes of the success path, batched across concurrent attempts. */
export interface DeliveryStore {
  load(deliveryId: string): Promise<DeliveryToSend | undefined>;
  delivered(a: { deliveryId: string; statusCode: number; latencyMs: number }): Promise<void>;
  /** One failed attempt of the stream: its health afterwards, `changed` for the one attempt that moved it. */
  failed(streamId: string): Promise<{ status: string; changed: boolean } | undefined>;
}

export function createDeliveryStore(pool: AttemptDeps['pool'], threshold: number): DeliveryStore {
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
  return { load, delivered, failed };
}

/**
 * One attempt of one delivery. The body is the stored one with `retries` set to the attempt
 * number (so each retry is signed anew); `webhook-id` is the delivery id on every attempt.
 */
export async function attemptDelivery(
  deps: AttemptDeps & { store: DeliveryStore; slots: EndpointSlots },
  deliveryId: string,
  attemptsMade: number,
): Promise<DeliveryOutcome> {
  const d = await deps.store.load(deliveryId);
  if (!d) return { outcome: 'dropped', reason: 'delivery or stream deleted' };
  if (d.status !== 'pending') return { outcome: 'dropped', reason: `delivery is ${d.status}` };
  if (d.streamStatus === 'terminated') {
    await setDeliveryStatus(deps.pool, d.id, 'failed');
    return { outcome: 'dropped', reason: 'stream terminated' };
  }
  if (d.streamStatus !== 'active') {
    await setDeliveryStatus(deps.pool, d.id, 'held');
    return { outcome: 'held' };
  }

  const endpoint = endpointOf(d.webhookUrl);
  if (!deps.slots.tryAcquire(endpoint)) return { outcome: 'postponed', endpoint };
  const slotTaken = performance.now();
  // The stored body has retries 0: the first attempt sends it as it is.
  const body = attemptsMade === 0 ? d.body : withRetries(d.body, attemptsMade);
  const result = await postWebhook({
    url: d.webhookUrl,
    body,
    headers: webhookHeaders({ id: d.id, body, secret: d.secret, queueSize: d.queueSize }),
    timeoutMs: deps.timeoutMs,
    allowPrivate: deps.allowPrivate,
  }).finally(() => deps.slots.release(endpoint, performance.now() - slotTaken));
  const log = { deliveryId: d.id, streamId: d.streamId, attempt: attemptsMade, latencyMs: result.latencyMs };

  if (result.ok) {
    await deps.store.delivered({
      deliveryId: d.id,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
    });
    // A healthy stream (100) has nothing to recover: its row is not written on the hot path.
    if (d.successRate < 100) await recordStreamHealth(deps.pool, d.streamId, true, deps.successRateThreshold);
    deps.logger.debug({ ...log, statusCode: result.statusCode }, 'webhook delivered');
    return { outcome: 'delivered', statusCode: result.statusCode };
  }

  const health = await deps.store.failed(d.streamId);
  if (health?.changed) await deps.onStreamStatusChanged(d.streamId);
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
  deps.logger.info({ ...log, error: result.error, newStatus }, 'webhook attempt failed');
  if (exhausted) return { outcome: 'gave-up', error: result.error };
  if (inError) return { outcome: 'held' };
  return { outcome: 'retry', after: deps.retryScheduleMs[attemptsMade] ?? 0, error: result.error };
}
