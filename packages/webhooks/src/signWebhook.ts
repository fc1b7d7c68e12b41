import { createHmac } from 'node:crypto';
import { keccak256Utf8 } from './keccak256.ts';

/**
 * The secrets that sign an account's webhooks at send time: its current one and, while a rotation
 * window lasts, the one it replaced (receivers may not have the new one yet).
 */
export interface SigningSecrets {
  current: string;
  /** The secret before the last rotation, until its window ends; absent outside a window. */
  previous?: string | undefined;
}

/** `x-signature`: 0x + keccak256(UTF-8 of body + secret), as the hosted service and its SDK compute it. */
export function signWebhook(body: string, secret: string): `0x${string}` {
  return keccak256Utf8(body + secret);
}

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`. The key is
 * the UTF-8 bytes of the account's secret, so one secret serves both schemes; GET /settings gives
 * those bytes as the `whsec_` key the official verifiers take (see standardWebhooksKey).
 */
function standardWebhookSignature(id: string, timestamp: number, body: string, secret: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Every header of one webhook POST. `id` is stable across retries of one delivery.
 *
 * During a rotation window `webhook-signature` carries one signature per secret (new first), which
 * Standard Webhooks verifiers accept when any one matches. `x-signature` holds one signature only:
 * it keeps the previous secret until the window ends, so a receiver loses nothing whenever in the
 * window it learns the new secret, as long as it keeps accepting the old one until then (README,
 * "Webhook signatures and secret rotation").
 */
export function webhookHeaders(opts: {
  id: string;
  body: string;
  secrets: SigningSecrets;
  queueSize: number;
  nowSeconds?: number;
}): Record<string, string> {
  const timestamp = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const { current, previous } = opts.secrets;
  const signing = previous === undefined || previous === current ? [current] : [current, previous];
  return {
    'content-type': 'application/json',
    'x-signature': signWebhook(opts.body, previous ?? current),
    'x-queue-size': String(opts.queueSize),
    'webhook-id': opts.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signing
      .map((secret) => standardWebhookSignature(opts.id, timestamp, opts.body, secret))
      .join(' '),
  };
}
