import {
  type Pool,
  getDeliveryToSend,
  recordAttempt,
  recordStreamHealth,
  setDeliveryStatus,
} from '@tributary/db';
import { type DeliveryOutcome, postWebhook, webhookHeaders, withRetries } from '@tributary/webhooks';
import type { Logger } from 'pino';

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

/**
 * One attempt of one delivery. The body is the stored one with `retries` set to the attempt
 * number (so each retry is signed anew); `webhook-id` is the delivery id on every attempt.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  deliveryId: string,
  attemptsMade: number,
): Promise<DeliveryOutcome> {
  const d = await getDeliveryToSend(deps.pool, deliveryId);
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

  const body = withRetries(d.body, attemptsMade);
  const result = await postWebhook({
    url: d.webhookUrl,
    body,
    headers: webhookHeaders({ id: d.id, body, secret: d.secret, queueSize: d.queueSize }),
    timeoutMs: deps.timeoutMs,
    allowPrivate: deps.allowPrivate,
  });
  const log = { deliveryId: d.id, streamId: d.streamId, attempt: attemptsMade, latencyMs: result.latencyMs };

  if (result.ok) {
    await recordAttempt(deps.pool, {
      deliveryId: d.id,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: null,
      newStatus: 'delivered',
    });
    await recordStreamHealth(deps.pool, d.streamId, true, deps.successRateThreshold);
    deps.logger.debug({ ...log, statusCode: result.statusCode }, 'webhook delivered');
    return { outcome: 'delivered', statusCode: result.statusCode };
  }

  const health = await recordStreamHealth(deps.pool, d.streamId, false, deps.successRateThreshold);
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
