import { standardWebhooksKey, webhookHeaders } from '@tributary/webhooks';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifySignatures } from './verifySignatures.ts';

// Headers made by the sender's own code (packages/webhooks), checked by the kit: what it accepts,
// what it refuses and the reason it gives.
const CURRENT = 'current-secret-0123456789abcdefghij';
const PREVIOUS = 'previous-secret-0123456789abcdefgh';
const BODY =
  '{"confirmed":true,"chainId":"0x7a69","streamId":"s","block":{"hash":"0xab","number":"1"},"erc20Transfers":[{"value":"5","to":"0xé"}]}';
const NOW = 1_800_000_000;

const signed = (opts: { body?: string; current?: string; previous?: string; at?: number } = {}) =>
  webhookHeaders({
    id: '7c1a3f7e-1d4e-4a4b-9a59-0d2f7f1f0b1e',
    body: opts.body ?? BODY,
    secrets: { current: opts.current ?? CURRENT, previous: opts.previous },
    queueSize: 0,
    nowSeconds: opts.at ?? NOW,
  });

const verify = (headers: Record<string, string>, secrets: string[], body = BODY, now = NOW) =>
  verifySignatures({ rawBody: Buffer.from(body, 'utf8'), headers, secrets, nowSeconds: now });

describe('verifySignatures', () => {
  it('accepts a webhook signed with the secret, over the exact UTF-8 bytes', () => {
    expect(verify(signed(), [CURRENT])).toEqual({
      ok: true,
      webhookId: '7c1a3f7e-1d4e-4a4b-9a59-0d2f7f1f0b1e',
      timestamp: NOW,
    });
    // The official Standard Webhooks verifier agrees on the same headers.
    expect(() =>
      new Webhook(standardWebhooksKey(CURRENT)).verify(BODY, signed({ at: Math.floor(Date.now() / 1000) })),
    ).not.toThrow();
  });

  it('refuses a body changed by one character, whichever header would catch it first', () => {
    const tampered = BODY.replace('"value":"5"', '"value":"6"');
    expect(verify(signed(), [CURRENT], tampered)).toEqual({
      ok: false,
      reason: 'webhook-signature does not match the body with any secret',
    });
    // Only x-signature left wrong (the Standard Webhooks one signed over the tampered body).
    const mixed = { ...signed({ body: tampered }), 'x-signature': signed()['x-signature']! };
    expect(verify(mixed, [CURRENT], tampered)).toEqual({
      ok: false,
      reason: 'x-signature does not match the body with any secret',
    });
  });

  it('refuses a webhook signed with another secret', () => {
    expect(verify(signed({ current: 'another-secret-0123456789abcdefghi' }), [CURRENT])).toEqual({
      ok: false,
      reason: 'webhook-signature does not match the body with any secret',
    });
  });

  it('during a rotation accepts with either secret kept, and refuses with neither', () => {
    // The sender signs webhook-signature with both and x-signature with the previous one.
    const rotating = signed({ previous: PREVIOUS });
    expect(rotating['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotating, [CURRENT, PREVIOUS]).ok).toBe(true);
    expect(verify(rotating, [PREVIOUS]).ok).toBe(true);
    // A receiver that switched to the new secret alone cannot check x-signature until the window ends.
    expect(verify(rotating, [CURRENT])).toEqual({
      ok: false,
      reason: 'x-signature does not match the body with any secret',
    });
    // After the window: only the new secret signs; a receiver still holding both accepts.
    expect(verify(signed(), [CURRENT, PREVIOUS]).ok).toBe(true);
    expect(verify(signed(), [PREVIOUS])).toEqual({
      ok: false,
      reason: 'webhook-signature does not match the body with any secret',
    });
  });

  it('refuses a timestamp more than 5 minutes from now, either way, and accepts one just within', () => {
    expect(verify(signed({ at: NOW - 301 }), [CURRENT])).toEqual({
      ok: false,
      reason: 'webhook-timestamp is more than 300 seconds from now',
    });
    expect(verify(signed({ at: NOW + 301 }), [CURRENT]).ok).toBe(false);
    expect(verify(signed({ at: NOW - 300 }), [CURRENT]).ok).toBe(true);
  });

  it('names the header that is missing or malformed', () => {
    const without = (name: string) =>
      Object.fromEntries(Object.entries(signed()).filter(([k]) => k !== name));
    expect(verify(without('x-signature'), [CURRENT])).toEqual({
      ok: false,
      reason: 'x-signature header missing',
    });
    expect(verify(without('webhook-signature'), [CURRENT])).toEqual({
      ok: false,
      reason: 'webhook-signature header missing',
    });
    expect(verify(without('webhook-id'), [CURRENT])).toEqual({
      ok: false,
      reason: 'webhook-id header missing',
    });
    expect(verify(without('webhook-timestamp'), [CURRENT])).toEqual({
      ok: false,
      reason: 'webhook-timestamp header missing or not Unix seconds',
    });
    expect(verify({ ...signed(), 'x-signature': '0x12' }, [CURRENT])).toEqual({
      ok: false,
      reason: 'x-signature is not 0x and 64 hex digits',
    });
    expect(verify({ ...signed(), 'webhook-signature': 'v2,abc' }, [CURRENT])).toEqual({
      ok: false,
      reason: 'webhook-signature holds no v1 signature',
    });
    expect(verify(signed(), [])).toEqual({ ok: false, reason: 'no secret configured' });
  });

  it('reads headers in any case, and from a fetch Headers object', () => {
    const upper = Object.fromEntries(Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify(upper, [CURRENT]).ok).toBe(true);
    const fetchHeaders = new Headers(signed());
    expect(
      verifySignatures({
        rawBody: Buffer.from(BODY),
        headers: fetchHeaders,
        secrets: [CURRENT],
        nowSeconds: NOW,
      }).ok,
    ).toBe(true);
  });
});
