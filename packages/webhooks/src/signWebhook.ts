import { createHmac } from 'node:crypto';
import { keccak256Utf8 } from './keccak256.ts';

/** `x-signature`: 0x + keccak256(UTF-8 of body + secret), as the hosted service and its SDK compute it. */
export function signWebhook(body: string, secret: string): `0x${string}` {
  return keccak256Utf8(body + secret);
}

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`. The key is
 * the UTF-8 bytes of the account's secret as shown by GET /settings (not a base64 `whsec_`
 * key), so one secret serves both schemes; verifiers are given the secret's bytes.
 */
export function standardWebhookSignature(
  id: string,
  timestamp: number,
  body: string,
  secret: string,
): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** Every header of one webhook POST. `id` is stable across retries of one delivery. */
export function webhookHeaders(opts: {
  id: string;
  body: string;
  secret: string;
  queueSize: number;
  nowSeconds?: number;
}): Record<string, string> {
  const timestamp = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'x-signature': signWebhook(opts.body, opts.secret),
    'x-queue-size': String(opts.queueSize),
    'webhook-id': opts.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(opts.id, timestamp, opts.body, opts.secret),
  };
}
