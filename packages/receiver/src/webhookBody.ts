/**
 * The webhook body as Tributary sends it (the hosted format plus `removed`, `backfillId` and
 * `sequence`). A copy of the types the contract infers (`webhookBody` of packages/schema, which
 * the sender's builders are typed by), so that a receiver's app depends on nothing of the service
 * and on no schema library: `webhookBody.test.ts` holds the two to each other.
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
export interface WebhookErc20Approval {
  transactionHash: string;
  logIndex: string;
  contract: string;
  owner: string;
  spender: string;
  value: string;
  tokenName: string;
  tokenSymbol: string;
  tokenDecimals: string;
  valueWithDecimals: string;
  possibleSpam: boolean;
  triggers?: TriggerResult[];
}

/** The NFT metadata of an item: the contract's standard, name and symbol ("" when unknown). */
export interface WebhookNftMetadata {
  tokenContractType: '' | 'ERC721' | 'ERC1155';
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
