/**
 * The webhook body as sent on the wire. Every value is a string, boolean, array or object (no
 * numbers), so `JSON.stringify(JSON.parse(bytes))` gives the same bytes back: the SDK's
 * verifySignature re-serializes the parsed body before hashing it.
 */
export interface WebhookLog {
  logIndex: string;
  transactionHash: string;
  address: string;
  data: string;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
  triggers?: TriggerResult[];
}

export interface WebhookTx {
  hash: string;
  gas: string;
  gasPrice: string | null;
  nonce: string;
  input: string;
  transactionIndex: string;
  fromAddress: string;
  toAddress: string | null;
  value: string;
  type: string;
  v: string | null;
  r: string | null;
  s: string | null;
  receiptCumulativeGasUsed: string;
  receiptGasUsed: string;
  receiptContractAddress: string | null;
  receiptRoot: string | null;
  receiptStatus: string | null;
  triggers?: TriggerResult[];
}

export interface WebhookInternalTx {
  from: string;
  to: string;
  value: string;
  transactionHash: string;
  gas: string;
}

export interface WebhookErc20Transfer {
  transactionHash: string;
  logIndex: string;
  contract: string;
  from: string;
  to: string;
  value: string;
  tokenName: string;
  tokenSymbol: string;
  tokenDecimals: string;
  valueWithDecimals: string;
  possibleSpam: boolean;
  triggers?: TriggerResult[];
}

/** An ERC20 Approval(owner, spender, value): the transfer's fields with owner and spender for from and to. */
export type WebhookErc20Approval = Omit<WebhookErc20Transfer, 'from' | 'to'> & {
  owner: string;
  spender: string;
};

/** The NFT metadata of an item: the contract's standard, name and symbol ("" when unknown). */
export interface WebhookNftMetadata {
  tokenContractType: string;
  tokenName: string;
  tokenSymbol: string;
}

/** One token id moved: an ERC721 Transfer (amount "1", operator null) or one id of an ERC1155 TransferSingle/Batch. */
export interface WebhookNftTransfer extends WebhookNftMetadata {
  transactionHash: string;
  logIndex: string;
  contract: string;
  operator: string | null;
  from: string;
  to: string;
  tokenId: string;
  amount: string;
  possibleSpam: boolean;
  triggers?: TriggerResult[];
}

/** An ERC721 Approval (one token) or an ApprovalForAll (tokenId null; approvedAll its flag). */
export interface WebhookNftApproval extends WebhookNftMetadata {
  transactionHash: string;
  logIndex: string;
  contract: string;
  account: string;
  operator: string;
  approvedAll: boolean;
  tokenId: string | null;
}

/** The deprecated `nftApprovals.ERC721` item: an ERC721 Approval as decoded. */
export interface WebhookErc721Approval extends WebhookNftMetadata {
  transactionHash: string;
  logIndex: string;
  contract: string;
  owner: string;
  approved: string;
  tokenId: string;
}

/** The deprecated `nftApprovals.ERC1155` item: an ERC1155 ApprovalForAll as decoded. */
export interface WebhookErc1155Approval extends WebhookNftMetadata {
  transactionHash: string;
  logIndex: string;
  contract: string;
  account: string;
  operator: string;
  approved: boolean;
}

export interface TriggerResult {
  name: string;
  value: unknown;
}

export interface NativeBalance {
  address: string;
  balance: string;
}

export interface WebhookBody {
  confirmed: boolean;
  /**
   * Beyond the hosted service: present (true) only in a removal notice, the webhook a stream with
   * `notifyRemovals` gets when a reorg orphans a block whose unconfirmed data it was sent.
   */
  removed?: true;
  /**
   * Beyond the hosted service: the id of the per-stream backfill that sent it
   * (`POST /streams/evm/{id}/backfill`); absent in live webhooks.
   */
  backfillId?: string;
  /**
   * Beyond the hosted service: in an `ordered` stream's confirmed webhooks, the stream's gap-free
   * sequence number (decimal, from "1"), in block order; absent otherwise.
   */
  sequence?: string;
  chainId: string;
  abi: unknown[];
  streamId: string;
  tag: string;
  retries: number;
  block: { number: string; hash: string; timestamp: string };
  logs: WebhookLog[];
  txs: WebhookTx[];
  txsInternal: WebhookInternalTx[];
  erc20Transfers: WebhookErc20Transfer[];
  erc20Approvals: WebhookErc20Approval[];
  nftTransfers: WebhookNftTransfer[];
  nftApprovals: { ERC721: WebhookErc721Approval[]; ERC1155: WebhookErc1155Approval[] };
  nftTokenApprovals: WebhookNftApproval[];
  nativeBalances: NativeBalance[];
}

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
