import { z } from 'zod';
import { fastArray, isIndex, isLowerHex, isUintString } from './fastArray.ts';
import { address, blockNumber, hash32, hexData, uintString } from './primitives.ts';

/**
 * Kafka topic `evm.blocks.v1`, key = chain id. One message per block event, in chain order per
 * chain: the new canonical blocks, `removed` for every orphaned block (before the new branch),
 * `confirmed` once a block is `confirmations` deep. A block already deeper than its chain's
 * confirmation depth when first published (backfill) is published once, as `confirmed`.
 * `new` and `confirmed` carry the whole block, so every consumer is stateless per block.
 *
 * Every event carries `v: 2`, the only payload version: a message without it (or with another) is
 * undecodable, as any message the schema refuses. Each decoded transfer names its log by
 * `logIndex` and carries only from, to and value (`erc20Transfer`); token and transaction are
 * those of that log, which the block must hold.
 */
export const blockHeader = z.object({
  number: blockNumber,
  hash: hash32,
  parentHash: hash32,
  /** Unix seconds. */
  timestamp: z.number().int().nonnegative(),
});
export type BlockHeader = z.infer<typeof blockHeader>;

export const chainLog = z.object({
  logIndex: z.number().int().nonnegative(),
  transactionHash: hash32,
  transactionIndex: z.number().int().nonnegative(),
  address,
  data: hexData,
  /** topic0..topic3 as present (0 to 4 entries). */
  topics: z.array(hash32).max(4),
});
export type ChainLog = z.infer<typeof chainLog>;

export const chainTransaction = z.object({
  hash: hash32,
  transactionIndex: z.number().int().nonnegative(),
  from: address,
  to: address.nullable(),
  value: uintString,
  gas: uintString,
  gasPrice: uintString.nullable(),
  nonce: z.number().int().nonnegative(),
  input: hexData,
  type: z.number().int().nonnegative(),
  v: z.string().nullable(),
  r: z.string().nullable(),
  s: z.string().nullable(),
  receipt: z.object({
    cumulativeGasUsed: uintString,
    gasUsed: uintString,
    contractAddress: address.nullable(),
    status: z.number().int().nullable(),
    root: z.string().nullable(),
  }),
});
export type ChainTransaction = z.infer<typeof chainTransaction>;

export const internalTransaction = z.object({
  transactionHash: hash32,
  from: address,
  to: address,
  value: uintString,
  gas: uintString,
  /** CALL, CREATE, ... */
  type: z.string(),
});
export type InternalTransaction = z.infer<typeof internalTransaction>;

/**
 * A decoded ERC20 Transfer(address,address,uint256): the log at `logIndex` in the same block is
 * the Transfer log; its address is the token and its transaction the transfer's.
 */
export const erc20Transfer = z.object({
  logIndex: z.number().int().nonnegative(),
  from: address,
  to: address,
  value: uintString,
});
export type Erc20Transfer = z.infer<typeof erc20Transfer>;

/** Token metadata, read once per token by the follower (the first time it sees the token). */
export const tokenMetadata = z.object({
  address,
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  decimals: z.number().int().min(0).max(255).nullable(),
  /** totalSupply just before the block in which the token was first seen; mints and burns from then on are applied by the projector. */
  totalSupply: uintString.nullable(),
  /** Block number at which totalSupply was read (first block seen minus one). */
  readAtBlock: blockNumber,
});
export type TokenMetadata = z.infer<typeof tokenMetadata>;

/**
 * Name, symbol and decimals of a token with transfers in the block. Every block event carries
 * them for each of its tokens, so consumers (the stream-matcher's erc20Transfers) never depend
 * on another consumer having written the tokens table first.
 */
export const tokenInfo = z.object({
  address,
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  decimals: z.number().int().min(0).max(255).nullable(),
  /** NFT contracts (ERC721/ERC1155 events in the block): the standard they answer to ERC165, null when neither. */
  contractType: z.enum(['ERC721', 'ERC1155']).nullable().optional(),
});
export type TokenInfo = z.infer<typeof tokenInfo>;

/**
 * What the stream-matcher knows of a token, looked up by its address: the naming of a block
 * event's tokenInfo or of the tokens table, and the operator's spam flag (tokens.possible_spam),
 * which no block event carries.
 */
export type KnownToken = Omit<TokenInfo, 'address'> & { possibleSpam?: boolean };

/** Whether an address held code when first seen (owners' is_contract). */
export const accountKind = z.object({ address, isContract: z.boolean() });
export type AccountKind = z.infer<typeof accountKind>;

const blockBody = {
  chainId: z.number().int().positive(),
  block: blockHeader,
  transactions: z.array(chainTransaction),
  logs: z.array(chainLog),
  internalTransactions: z.array(internalTransaction),
  /** Metadata of tokens first seen in this block (with totalSupply: the projector's tokens rows). */
  tokens: z.array(tokenMetadata),
  /** Name, symbol and decimals of every token with transfers in this block, and of every NFT contract with events in it. */
  tokenInfo: z.array(tokenInfo).default([]),
  /** Code presence of addresses first seen in this block. */
  accounts: z.array(accountKind),
  /**
   * What the block carries beyond its logs (blockContents.ts): its transactions with receipts, and
   * the internal transactions of their traces. The follower fetches them for every block that a
   * stream can read; a consumer that needs a part a block lacks gets it from the node or waits.
   */
  hasTransactions: z.boolean(),
  hasInternalTransactions: z.boolean(),
  /**
   * Whether the code presence of the transfer parties first seen in this block was read
   * (`accounts`): false when the follower runs with FETCH_ACCOUNT_KINDS off (owners' is_contract
   * is then unknown for them). Absent in events published before it was stated.
   */
  hasAccountKinds: z.boolean().optional(),
};

/** The common case of a log, checked by hand: lower-case hex, as the follower writes it. */
function quickLog(v: unknown): ChainLog | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const l = v as Record<string, unknown>;
  const topics = l['topics'];
  if (!Array.isArray(topics) || topics.length > 4) return undefined;
  for (const t of topics) if (!isLowerHex(t, 64)) return undefined;
  const { logIndex, transactionHash, transactionIndex, address: addr, data } = l;
  if (!isIndex(logIndex) || !isIndex(transactionIndex)) return undefined;
  if (!isLowerHex(transactionHash, 64) || !isLowerHex(addr, 40) || !isLowerHex(data)) return undefined;
  return { logIndex, transactionHash, transactionIndex, address: addr, data, topics: topics.slice() };
}

function quickTransfer(v: unknown): Erc20Transfer | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { logIndex, from, to, value } = v as Record<string, unknown>;
  if (!isIndex(logIndex) || !isLowerHex(from, 40) || !isLowerHex(to, 40) || !isUintString(value))
    return undefined;
  return { logIndex, from, to, value };
}

/** The one payload version; any other is refused with a reason that names it. */
const version = z.literal(2, {
  error: (issue) => `block event version ${JSON.stringify(issue.input)}: only version 2 is accepted`,
});

// Blocks can hold tens of thousands of logs and transfers: their elements are checked by hand
// first (fastArray), with exactly the result and issues of the element schemas.
const fullBody = {
  ...blockBody,
  v: version,
  logs: fastArray(chainLog, quickLog),
  transfers: fastArray(erc20Transfer, quickTransfer),
};

/** Every transfer names a log of its block (one transfer per log at most). */
function transfersReferToLogs(
  e: { logs: readonly { logIndex: number }[]; transfers: readonly { logIndex: number }[] },
  ctx: z.core.$RefinementCtx,
) {
  if (e.transfers.length === 0) return;
  const logs = new Set<number>();
  for (const l of e.logs) logs.add(l.logIndex);
  const used = new Set<number>();
  e.transfers.forEach((t, i) => {
    if (!logs.has(t.logIndex) || used.has(t.logIndex)) {
      ctx.addIssue({
        code: 'custom',
        message: `transfer ${i} names log ${t.logIndex}, which the block does not hold (or another transfer named)`,
        path: ['transfers', i, 'logIndex'],
      });
    }
    used.add(t.logIndex);
  });
}

const removedHeader = { chainId: z.number().int().positive(), block: blockHeader };

export const blockEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('new'), ...fullBody }).superRefine(transfersReferToLogs),
  z.object({ type: z.literal('confirmed'), ...fullBody }).superRefine(transfersReferToLogs),
  z.object({ type: z.literal('removed'), v: version, ...removedHeader }),
]);
export type BlockEvent = z.infer<typeof blockEvent>;
export type FullBlockEvent = Extract<BlockEvent, { type: 'new' | 'confirmed' }>;
