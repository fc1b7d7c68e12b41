import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { signWebhook, webhookHeaders } from './signWebhook.ts';
import { standardWebhooksKey } from './standardWebhooksKey.ts';
import { TEST_WEBHOOK_BODY, serializeWebhook, withRetries } from './serializeWebhook.ts';

const VECTOR_BODY =
  '{"confirmed":true,"chainId":"0x1","abi":[],"streamId":"s","tag":"t","retries":0,"block":{"number":"1","hash":"0x","timestamp":"1"},"logs":[],"txs":[],"txsInternal":[],"erc20Transfers":[],"erc20Approvals":[],"nftTransfers":[],"nftApprovals":{"ERC721":[],"ERC1155":[]},"nftTokenApprovals":[],"nativeBalances":[]}';

describe('signWebhook', () => {
  it('matches the check vector of the wire contract', () => {
    expect(signWebhook(VECTOR_BODY, 'my-secret')).toBe(
      '0x2ca090d8a2081f8b72a83a1d58fc5392c7a5e839c057fea60e9a6b5ccb245aba',
    );
  });

  it('serializes a body in the hosted key order', () => {
    const body = serializeWebhook({
      nativeBalances: [],
      nftTokenApprovals: [],
      nftApprovals: { ERC721: [], ERC1155: [] },
      nftTransfers: [],
      erc20Approvals: [],
      erc20Transfers: [],
      txsInternal: [],
      txs: [],
      logs: [],
      block: { number: '1', hash: '0x', timestamp: '1' },
      retries: 0,
      tag: 't',
      streamId: 's',
      abi: [],
      chainId: '0x1',
      confirmed: true,
    });
    expect(body).toBe(VECTOR_BODY);
    expect(withRetries(body, 0)).toBe(VECTOR_BODY);
    expect(withRetries(body, 2)).toBe(VECTOR_BODY.replace('"retries":0', '"retries":2'));
  });

  it('the test body round-trips through JSON unchanged', () => {
    expect(JSON.stringify(JSON.parse(TEST_WEBHOOK_BODY))).toBe(TEST_WEBHOOK_BODY);
  });

  it('builds Standard Webhooks headers over id.timestamp.body', () => {
    const h = webhookHeaders({
      id: 'd1',
      body: VECTOR_BODY,
      secrets: { current: 'my-secret' },
      queueSize: 3,
      nowSeconds: 1700,
    });
    expect(h).toEqual({
      'content-type': 'application/json',
      'x-signature': '0x2ca090d8a2081f8b72a83a1d58fc5392c7a5e839c057fea60e9a6b5ccb245aba',
      'x-queue-size': '3',
      'webhook-id': 'd1',
      'webhook-timestamp': '1700',
      // base64 HMAC-SHA256 under "my-secret" of "d1.1700." + VECTOR_BODY (openssl dgst -sha256 -hmac).
      'webhook-signature': 'v1,UNBCMSOmCZAZIVvOccJrMdZBmPbDidWSFG+H90oUa/k=',
    });
  });

  it('during a rotation window signs webhook-signature with the new then the old secret, x-signature with the old', () => {
    const h = webhookHeaders({
      id: 'd1',
      body: VECTOR_BODY,
      secrets: { current: NEW, previous: 'my-secret' },
      queueSize: 0,
      nowSeconds: 1700,
    });
    // The new secret's signature as the official library computes it, then the one above.
    const byLibrary = new StandardWebhook(standardWebhooksKey(NEW)).sign(
      'd1',
      new Date(1_700_000),
      VECTOR_BODY,
    );
    expect(h['webhook-signature']).toBe(`${byLibrary} v1,UNBCMSOmCZAZIVvOccJrMdZBmPbDidWSFG+H90oUa/k=`);
    expect(h['x-signature']).toBe('0x2ca090d8a2081f8b72a83a1d58fc5392c7a5e839c057fea60e9a6b5ccb245aba');
  });
});

const NEW = 'UJ8qXr4m0cM3t7ZsYb2Kd9LwAf6HnEvP';
const OLD = 'my-previous-secret-of-32-characters';

describe('the official Standard Webhooks verifiers', () => {
  const verifiers = [
    ['standardwebhooks', (key: string) => new StandardWebhook(key)],
    ['svix', (key: string) => new SvixWebhook(key)],
  ] as const;
  const headersOf = (secrets: { current: string; previous?: string }) =>
    webhookHeaders({ id: 'msg_1', body: VECTOR_BODY, secrets, queueSize: 0 });

  it('gives the key as whsec_ + base64 of the secret bytes', () => {
    expect(standardWebhooksKey('my-secret')).toBe('whsec_bXktc2VjcmV0');
  });

  for (const [name, verifierOf] of verifiers) {
    it(`${name} verifies with the key of GET /settings unchanged; during a window with either key`, () => {
      const outside = headersOf({ current: NEW });
      expect(() => verifierOf(standardWebhooksKey(NEW)).verify(VECTOR_BODY, outside)).not.toThrow();
      expect(() => verifierOf(standardWebhooksKey(OLD)).verify(VECTOR_BODY, outside)).toThrow(
        'No matching signature found',
      );

      const during = headersOf({ current: NEW, previous: OLD });
      expect(() => verifierOf(standardWebhooksKey(NEW)).verify(VECTOR_BODY, during)).not.toThrow();
      expect(() => verifierOf(standardWebhooksKey(OLD)).verify(VECTOR_BODY, during)).not.toThrow();
      expect(() =>
        verifierOf(standardWebhooksKey('some-other-secret-of-32-characters')).verify(VECTOR_BODY, during),
      ).toThrow('No matching signature found');
    });
  }
});
