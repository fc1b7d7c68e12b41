import type { WebhookBody } from '@tributary/schema';

// The body bytes of a webhook: built once when the delivery is stored (key order of the hosted
// service), then changed only where an attempt differs. The shape is the schema package's
// `webhookBody`; nothing here parses with it, the bytes are signed as built.

/** Serializes in the hosted service's key order (the check vector of API.md is built this way). */
export function serializeWebhook(body: WebhookBody): string {
  const ordered: WebhookBody = {
    confirmed: body.confirmed,
    ...(body.removed ? { removed: true as const } : {}),
    ...(body.backfillId !== undefined ? { backfillId: body.backfillId } : {}),
    ...(body.sequence !== undefined ? { sequence: body.sequence } : {}),
    chainId: body.chainId,
    abi: body.abi,
    streamId: body.streamId,
    tag: body.tag,
    retries: body.retries,
    block: { number: body.block.number, hash: body.block.hash, timestamp: body.block.timestamp },
    logs: body.logs,
    txs: body.txs,
    txsInternal: body.txsInternal,
    erc20Transfers: body.erc20Transfers,
    erc20Approvals: body.erc20Approvals,
    nftTransfers: body.nftTransfers,
    nftApprovals: body.nftApprovals,
    nftTokenApprovals: body.nftTokenApprovals,
    nativeBalances: body.nativeBalances,
  };
  return JSON.stringify(ordered);
}

/**
 * The body of one attempt: the stored bytes with `retries` set to the attempt number. Parsing
 * and re-serializing keeps every other byte (key order is kept, the body holds no floats).
 */
export function withRetries(storedBody: string, retries: number): string {
  const parsed = JSON.parse(storedBody) as Record<string, unknown>;
  parsed['retries'] = retries;
  return JSON.stringify(parsed);
}

/**
 * The body of one attempt of a stored delivery: `retries` set to the attempt number and, for an
 * ordered stream's numbered delivery, its `sequence` (given when it was stored, after its body).
 */
export function bodyForAttempt(storedBody: string, retries: number, sequence: number | null): string {
  if (sequence === null) return retries === 0 ? storedBody : withRetries(storedBody, retries);
  const parsed = JSON.parse(storedBody) as WebhookBody;
  return serializeWebhook({ ...parsed, retries, sequence: String(sequence) });
}

/**
 * The removal notice of an unconfirmed webhook: the same body, every item of it, marked
 * `"removed": true` right after `confirmed` (false). The receiver undoes what that webhook
 * carried (matched by block hash, transaction hash and log index). Signed like any webhook.
 */
export function removalNoticeBody(unconfirmedBody: string): string {
  const body = JSON.parse(unconfirmedBody) as WebhookBody;
  return serializeWebhook({ ...body, confirmed: false, removed: true, retries: 0 });
}

/** The body POSTed on create, update and re-activation (exactly the hosted service's). */
export const TEST_WEBHOOK_BODY =
  '{"abi":[],"block":{"hash":"","number":"","timestamp":""},"txs":[],"txsInternal":[],"tag":"","streamId":"","logs":[],"chainId":"","confirmed":true,"retries":0,"erc20Approvals":[],"erc20Transfers":[],"nftApprovals":{"ERC721":[],"ERC1155":[]},"nftTokenApprovals":[],"nftTransfers":[],"nativeBalances":[]}';
