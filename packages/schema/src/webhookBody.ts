import { z } from 'zod';
import { uintString } from './primitives.ts';

// The webhook body as the sender POSTs it: the hosted Streams format plus `removed`, `backfillId`
// and `sequence`. Every value is a string, boolean, array or object (no floats; `retries` is the
// one integer), so `JSON.stringify(JSON.parse(bytes))` gives the same bytes back: the SDK's
// verifySignature re-serializes the parsed body before hashing it. Objects are strict: a member
// the builders add without adding it here fails the tests that parse their bodies.
//
// The sender never parses a body with this (its bytes are signed as built): tests and the OpenAPI
// document do. The test webhook (TEST_WEBHOOK_BODY, the hosted service's empty body with "" for
// hashes and numbers) is not of this shape.

// Wire formats: patterns only, never transforms, so what parses is what was sent.
const address = z.string().regex(/^0x[0-9a-f]{40}$/, 'must be a lower-case 0x-prefixed 20-byte address');
const hash = z.string().regex(/^0x[0-9a-f]{64}$/, 'must be a lower-case 0x-prefixed 32-byte hash');
const hexBytes = z.string().regex(/^0x([0-9a-f]{2})*$/, 'must be lower-case 0x-prefixed hex bytes');
/** The token's decimals, "" when unknown. */
const decimalsOrEmpty = z.string().regex(/^(|0|[1-9][0-9]*)$/, 'must be an unsigned integer or ""');
/** The amount with the token's decimals applied (viem's formatUnits), "" when the decimals are unknown. */
const scaledOrEmpty = z
  .string()
  .regex(/^(|(0|[1-9][0-9]*)(\.[0-9]*[1-9])?)$/, 'must be a decimal number without exponent, or ""');

export const triggerResult = z
  .strictObject({
    name: z.string().meta({ description: 'The function output name (output1 if unnamed), or "error"' }),
    value: z.unknown().meta({ description: 'The decoded output, or the error message' }),
  })
  .meta({ id: 'WebhookTriggerResult' });
export type TriggerResult = z.infer<typeof triggerResult>;

const triggers = z.array(triggerResult).optional().meta({
  description: "Results of the stream's triggers on this item, in the stream's trigger order",
});

export const webhookLog = z
  .strictObject({
    logIndex: uintString,
    transactionHash: hash,
    address,
    data: hexBytes,
    topic0: hash.nullable(),
    topic1: hash.nullable(),
    topic2: hash.nullable(),
    topic3: hash.nullable(),
    triggers,
  })
  .meta({ id: 'WebhookLog' });
export type WebhookLog = z.infer<typeof webhookLog>;

export const webhookTx = z
  .strictObject({
    hash,
    gas: uintString,
    gasPrice: uintString.nullable(),
    nonce: uintString,
    input: hexBytes,
    transactionIndex: uintString,
    fromAddress: address,
    toAddress: address.nullable(),
    value: uintString,
    type: uintString,
    v: uintString.nullable(),
    r: uintString.nullable(),
    s: uintString.nullable(),
    receiptCumulativeGasUsed: uintString,
    receiptGasUsed: uintString,
    receiptContractAddress: address.nullable(),
    receiptRoot: hash.nullable(),
    receiptStatus: z
      .string()
      .regex(/^[01]$/, 'must be "0" or "1"')
      .nullable(),
    triggers,
  })
  .meta({ id: 'WebhookTx' });
export type WebhookTx = z.infer<typeof webhookTx>;

export const webhookInternalTx = z
  .strictObject({ from: address, to: address, value: uintString, transactionHash: hash, gas: uintString })
  .meta({ id: 'WebhookInternalTx' });
export type WebhookInternalTx = z.infer<typeof webhookInternalTx>;

const erc20Amount = {
  value: uintString,
  tokenName: z.string(),
  tokenSymbol: z.string(),
  tokenDecimals: decimalsOrEmpty,
  valueWithDecimals: scaledOrEmpty,
  possibleSpam: z.boolean(),
  triggers,
};
const logItem = { transactionHash: hash, logIndex: uintString, contract: address };

export const webhookErc20Transfer = z
  .strictObject({ ...logItem, from: address, to: address, ...erc20Amount })
  .meta({ id: 'WebhookErc20Transfer' });
export type WebhookErc20Transfer = z.infer<typeof webhookErc20Transfer>;

/** An ERC20 Approval(owner, spender, value): the transfer's fields with owner and spender for from and to. */
export const webhookErc20Approval = z
  .strictObject({ ...logItem, owner: address, spender: address, ...erc20Amount })
  .meta({ id: 'WebhookErc20Approval' });
export type WebhookErc20Approval = z.infer<typeof webhookErc20Approval>;

/** The NFT metadata of an item: the contract's standard, name and symbol ("" when unknown). */
const nftMetadata = {
  tokenContractType: z.enum(['', 'ERC721', 'ERC1155']),
  tokenName: z.string(),
  tokenSymbol: z.string(),
};
export type WebhookNftMetadata = z.infer<z.ZodObject<typeof nftMetadata>>;

/** One token id moved: an ERC721 Transfer (amount "1", operator null) or one id of an ERC1155 TransferSingle/Batch. */
export const webhookNftTransfer = z
  .strictObject({
    ...logItem,
    ...nftMetadata,
    operator: address.nullable(),
    from: address,
    to: address,
    tokenId: uintString,
    amount: uintString,
    possibleSpam: z.boolean(),
    triggers,
  })
  .meta({ id: 'WebhookNftTransfer' });
export type WebhookNftTransfer = z.infer<typeof webhookNftTransfer>;

/** An ERC721 Approval (one token) or an ApprovalForAll (tokenId null; approvedAll its flag). */
export const webhookNftApproval = z
  .strictObject({
    ...logItem,
    ...nftMetadata,
    account: address,
    operator: address,
    approvedAll: z.boolean(),
    tokenId: uintString.nullable(),
  })
  .meta({ id: 'WebhookNftApproval' });
export type WebhookNftApproval = z.infer<typeof webhookNftApproval>;

/** The deprecated `nftApprovals.ERC721` item: an ERC721 Approval as decoded. */
export const webhookErc721Approval = z
  .strictObject({ ...logItem, ...nftMetadata, owner: address, approved: address, tokenId: uintString })
  .meta({ id: 'WebhookErc721Approval' });
export type WebhookErc721Approval = z.infer<typeof webhookErc721Approval>;

/** The deprecated `nftApprovals.ERC1155` item: an ERC1155 ApprovalForAll as decoded. */
export const webhookErc1155Approval = z
  .strictObject({ ...logItem, ...nftMetadata, account: address, operator: address, approved: z.boolean() })
  .meta({ id: 'WebhookErc1155Approval' });
export type WebhookErc1155Approval = z.infer<typeof webhookErc1155Approval>;

export const nativeBalance = z
  .strictObject({ address, balance: uintString.meta({ description: 'In wei, at the block' }) })
  .meta({ id: 'WebhookNativeBalance' });
export type NativeBalance = z.infer<typeof nativeBalance>;

export const webhookBody = z
  .strictObject({
    confirmed: z.boolean(),
    removed: z.literal(true).optional().meta({
      description:
        'Beyond the hosted service: present (true) only in a removal notice, the webhook a stream with notifyRemovals gets when a reorg orphans a block whose unconfirmed webhook it was sent',
    }),
    backfillId: z
      .string()
      .regex(/^[1-9][0-9]*$/, 'must be a backfill id (a positive decimal integer)')
      .optional()
      .meta({
        description:
          'Beyond the hosted service: the id of the per-stream backfill that sent it (POST /streams/evm/{id}/backfill), a decimal string; absent in live webhooks',
      }),
    sequence: z
      .string()
      .regex(/^[1-9][0-9]*$/, 'must be a positive decimal integer')
      .optional()
      .meta({
        description:
          'Beyond the hosted service: in an ordered stream\'s confirmed webhooks, the stream\'s gap-free sequence number (from "1"), in block order; absent otherwise',
      }),
    chainId: z.string().regex(/^0x[0-9a-f]+$/, 'must be a lower-case 0x-prefixed hex chain id'),
    abi: z
      .array(z.unknown())
      .meta({ description: "The stream's ABI: it decodes every log the body carries" }),
    streamId: z.uuid(),
    tag: z.string(),
    retries: z.number().int().nonnegative().meta({ description: 'The attempt: 0 on the first' }),
    block: z.strictObject({
      number: uintString,
      hash,
      timestamp: uintString.meta({ description: 'Unix seconds' }),
    }),
    logs: z.array(webhookLog),
    txs: z.array(webhookTx),
    txsInternal: z.array(webhookInternalTx),
    erc20Transfers: z.array(webhookErc20Transfer),
    erc20Approvals: z.array(webhookErc20Approval),
    nftTransfers: z.array(webhookNftTransfer),
    nftApprovals: z
      .strictObject({ ERC721: z.array(webhookErc721Approval), ERC1155: z.array(webhookErc1155Approval) })
      .meta({ description: 'Deprecated (kept for the hosted format): nftTokenApprovals split by standard' }),
    nftTokenApprovals: z.array(webhookNftApproval),
    nativeBalances: z.array(nativeBalance),
  })
  .meta({
    id: 'WebhookBody',
    description:
      'What a stream POSTs to its webhookUrl, once per (stream, block, confirmed); signed in x-signature and the Standard Webhooks headers',
  });
export type WebhookBody = z.infer<typeof webhookBody>;
