import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { keccak256, stringToBytes } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { type ReceivedRequest, startTestReceiver } from '../testing/startTestReceiver.ts';

// GET/POST /settings on the real stream interface: what a caller reads, what a rotation does to the
// signatures of the next webhook (the test webhook of a stream create, signed as the sender signs),
// and that the official Standard Webhooks verifiers take the key GET /settings gives, unchanged.
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;

const FIRST = 'first-secret-of-thirty-two-chars'; // 32 characters: the shortest accepted
const SECOND = 'second-secret-0123456789abcdefghij';
const THIRD = 'third-secret-0123456789abcdefghijk';

async function settings() {
  const res = await gw.request('/settings');
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function setSecret(body: unknown) {
  const res = await gw.request('/settings', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The test webhook of a new stream: signed with the account's secrets as they sign now. */
async function nextWebhook(): Promise<ReceivedRequest> {
  receiver.received.length = 0;
  const res = await gw.request('/streams/evm', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      webhookUrl: receiver.url,
      description: 'settings',
      tag: 'settings',
      chainIds: ['0x7a69'],
      includeNativeTxs: true,
    }),
  });
  expect(res.status).toBe(200);
  expect(receiver.received).toHaveLength(1);
  return receiver.received[0]!;
}

/** x-signature as a receiver checks it: keccak256 of the body followed by the secret (viem's hash, not ours). */
const xSignatureOf = (raw: string, secret: string) => keccak256(stringToBytes(raw + secret));

/** Which of these Standard Webhooks keys verify the webhook, with each official library. */
function verifyingKeys(w: ReceivedRequest, keys: Record<string, string>) {
  const headers = w.headers as Record<string, string>;
  const accepts = (verify: () => unknown) => {
    try {
      verify();
      return true;
    } catch {
      return false;
    }
  };
  return Object.fromEntries(
    Object.entries(keys).map(([name, key]) => [
      name,
      {
        standardwebhooks: accepts(() => new StandardWebhook(key).verify(w.raw, headers)),
        svix: accepts(() => new SvixWebhook(key).verify(w.raw, headers)),
      },
    ]),
  );
}
const both = { standardwebhooks: true, svix: true };
const neither = { standardwebhooks: false, svix: false };

/** Ends the rotation window as time would (the sender and the gateway judge it by the database clock). */
const endWindow = () =>
  gw.db.pool.query('UPDATE accounts SET previous_webhook_secret_valid_until = now() WHERE id = $1', [
    gw.apiKey.accountId,
  ]);

beforeAll(async () => {
  gw = await startTestGateway({ streams: true });
  receiver = await startTestReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

beforeEach(async () => {
  // Each test starts from FIRST, with no rotation under way.
  await gw.db.pool.query(
    `UPDATE accounts SET webhook_secret = $2, previous_webhook_secret = NULL,
            previous_webhook_secret_valid_until = NULL WHERE id = $1`,
    [gw.apiKey.accountId, FIRST],
  );
});

describe('GET /settings', () => {
  it('gives secretKey as the hosted service does and the same secret as a whsec_ key the official verifiers take', async () => {
    const { status, body } = await settings();
    expect(status).toBe(200);
    // base64 of the UTF-8 bytes of FIRST.
    expect(body).toEqual({
      secretKey: FIRST,
      standardWebhooksKey: 'whsec_Zmlyc3Qtc2VjcmV0LW9mLXRoaXJ0eS10d28tY2hhcnM=',
    });
    const w = await nextWebhook();
    expect(w.headers['x-signature']).toBe(xSignatureOf(w.raw, FIRST));
    expect(verifyingKeys(w, { given: body['standardWebhooksKey']! })).toEqual({ given: both });
  });
});

describe('POST /settings', () => {
  it('refuses a secret shorter than 32 characters (or none) with 422 and says why; the secret is unchanged', async () => {
    const refused = {
      status: 422,
      body: {
        message: 'Validation Failed',
        details: {
          secretKey: {
            message:
              'secretKey must be a string of 32 to 256 characters: a webhook secret needs at least 24 random bytes (32 characters of base64url)',
          },
        },
      },
    };
    expect(await setSecret({ secretKey: 'x'.repeat(31) })).toEqual(refused);
    expect(await setSecret({ secretKey: 'my-secret' })).toEqual(refused);
    expect(await setSecret({})).toEqual(refused);
    expect((await settings()).body['secretKey']).toBe(FIRST);
    // The bound is the length of a generated secret: 24 random bytes, 32 base64url characters.
    const generated = gw.apiKey.webhookSecret;
    expect(Buffer.from(generated, 'base64url')).toHaveLength(24);
    expect(generated).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await setSecret({ secretKey: generated })).status).toBe(200);
  });

  it('rotates: for the window webhook-signature carries both secrets and x-signature the old one; then only the new one signs', async () => {
    const before = await settings();
    const rotated = await setSecret({ secretKey: SECOND });
    const { rows } = await gw.db.pool.query<{ until: Date; left_ms: number }>(
      `SELECT previous_webhook_secret_valid_until AS until,
              (extract(epoch FROM previous_webhook_secret_valid_until - now()) * 1000)::float8 AS left_ms
         FROM accounts WHERE id = $1`,
      [gw.apiKey.accountId],
    );
    const window = rows[0]!;
    expect(rotated).toEqual({
      status: 200,
      body: {
        secretKey: SECOND,
        standardWebhooksKey: 'whsec_c2Vjb25kLXNlY3JldC0wMTIzNDU2Nzg5YWJjZGVmZ2hpag==',
        previousSecretValidUntil: window.until.toISOString(),
      },
    });
    // The default window: 24 hours from the rotation.
    expect(window.left_ms).toBeGreaterThan(23 * 3_600_000);
    expect(window.left_ms).toBeLessThanOrEqual(24 * 3_600_000);
    expect(await settings()).toEqual(rotated);

    const keys = {
      old: before.body['standardWebhooksKey']!,
      new: rotated.body['standardWebhooksKey'] as string,
    };
    const during = await nextWebhook();
    expect(during.headers['x-signature']).toBe(xSignatureOf(during.raw, FIRST));
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyingKeys(during, keys)).toEqual({ old: both, new: both });

    await endWindow();
    expect(await settings()).toEqual({
      status: 200,
      body: { secretKey: SECOND, standardWebhooksKey: keys.new },
    });
    const after = await nextWebhook();
    expect(after.headers['x-signature']).toBe(xSignatureOf(after.raw, SECOND));
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyingKeys(after, keys)).toEqual({ old: neither, new: both });
  });

  it('setting the current secret again neither ends nor restarts the window (a retried request loses nothing)', async () => {
    const rotated = await setSecret({ secretKey: SECOND });
    expect(await setSecret({ secretKey: SECOND })).toEqual(rotated);
    const w = await nextWebhook();
    expect(w.headers['x-signature']).toBe(xSignatureOf(w.raw, FIRST));
    expect(verifyingKeys(w, { first: 'whsec_Zmlyc3Qtc2VjcmV0LW9mLXRoaXJ0eS10d28tY2hhcnM=' })).toEqual({
      first: both,
    });
  });

  it('a rotation within a window starts a new one: the secret before the last stops signing', async () => {
    const first = (await settings()).body['standardWebhooksKey']!;
    const second = (await setSecret({ secretKey: SECOND })).body['standardWebhooksKey'] as string;
    const third = (await setSecret({ secretKey: THIRD })).body['standardWebhooksKey'] as string;
    const w = await nextWebhook();
    expect(w.headers['x-signature']).toBe(xSignatureOf(w.raw, SECOND));
    expect(verifyingKeys(w, { first, second, third })).toEqual({ first: neither, second: both, third: both });
  });
});
