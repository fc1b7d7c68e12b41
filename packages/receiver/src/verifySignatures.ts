import { createHmac, timingSafeEqual } from 'node:crypto';
import { keccak256 } from 'viem';

/** Request headers as node's http module, express or the fetch API give them. */
export type WebhookHeaders =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export type Verification = { ok: true; webhookId: string; timestamp: number } | { ok: false; reason: string };

/** How far `webhook-timestamp` may be from the receiver's clock (Standard Webhooks' tolerance). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** One header's value, case-insensitively; a repeated header is refused as absent. */
function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return typeof value === 'string' ? value : undefined;
}

/** Constant-time equality of two byte strings (lengths are not secret: both are fixed-size digests). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `x-signature`: `0x` + keccak256(body bytes + secret's UTF-8 bytes), checked against each secret. */
function checkXSignature(
  rawBody: Buffer,
  given: string | undefined,
  secrets: readonly string[],
): string | undefined {
  if (given === undefined) return 'x-signature header missing';
  if (!/^0x[0-9a-fA-F]{64}$/.test(given)) return 'x-signature is not 0x and 64 hex digits';
  const givenBytes = Buffer.from(given.slice(2), 'hex');
  const matches = secrets.map((secret) => {
    const digest = keccak256(Buffer.concat([rawBody, Buffer.from(secret, 'utf8')]));
    return sameBytes(Buffer.from(digest.slice(2), 'hex'), givenBytes);
  });
  return matches.includes(true) ? undefined : 'x-signature does not match the body with any secret';
}

/**
 * `webhook-signature` (Standard Webhooks): space-separated `v1,<base64 HMAC-SHA256>` over
 * `id.timestamp.body`, keyed with a secret's UTF-8 bytes. During a rotation the sender signs with
 * both secrets: any one match is enough.
 */
function checkStandardSignature(
  rawBody: Buffer,
  id: string,
  timestamp: string,
  header: string,
  secrets: readonly string[],
): string | undefined {
  const given = header
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'base64'));
  if (given.length === 0) return 'webhook-signature holds no v1 signature';
  let matched = false;
  for (const secret of secrets) {
    const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`${id}.${timestamp}.`)
      .update(rawBody)
      .digest();
    // Every candidate is compared, whatever matched before: the time taken tells nothing.
    for (const signature of given) if (sameBytes(mac, signature)) matched = true;
  }
  return matched ? undefined : 'webhook-signature does not match the body with any secret';
}

/**
 * Checks both signatures of a webhook POST over its exact body bytes: `x-signature` (the hosted
 * service's) and `webhook-signature` with `webhook-id` and `webhook-timestamp` (Standard
 * Webhooks). Tributary sends both on every webhook, so both are required: a missing or wrong
 * one is refused with the reason. `secrets` holds the current secret and, during a rotation
 * window, the previous one.
 */
export function verifySignatures(opts: {
  rawBody: Buffer;
  headers: WebhookHeaders;
  secrets: readonly string[];
  toleranceSeconds?: number;
  nowSeconds?: number;
}): Verification {
  const { rawBody, headers, secrets } = opts;
  if (secrets.length === 0) return { ok: false, reason: 'no secret configured' };
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  if (!id) return { ok: false, reason: 'webhook-id header missing' };
  if (!timestamp || !/^[0-9]{1,12}$/.test(timestamp))
    return { ok: false, reason: 'webhook-timestamp header missing or not Unix seconds' };
  if (!signature) return { ok: false, reason: 'webhook-signature header missing' };
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    return { ok: false, reason: `webhook-timestamp is more than ${tolerance} seconds from now` };
  const standard = checkStandardSignature(rawBody, id, timestamp, signature, secrets);
  if (standard) return { ok: false, reason: standard };
  const x = checkXSignature(rawBody, headerOf(headers, 'x-signature'), secrets);
  if (x) return { ok: false, reason: x };
  return { ok: true, webhookId: id, timestamp: Number(timestamp) };
}
