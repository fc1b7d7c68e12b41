import { describe, expect, it } from 'vitest';
import { signWebhook, webhookHeaders } from './signWebhook.ts';
import { TEST_WEBHOOK_BODY, serializeWebhook, withRetries } from './webhookBody.ts';

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
      secret: 'my-secret',
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
});
