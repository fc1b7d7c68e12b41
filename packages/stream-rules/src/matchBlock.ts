import { APPROVAL_TOPIC0, TRANSFER_TOPIC0 } from '@tributary/evm';
import {
  type ChainLog,
  type ChainTransaction,
  type FullBlockEvent,
  type InternalTransaction,
  type KnownToken,
  type WebhookBody,
  type WebhookErc20Approval,
  type WebhookErc20Transfer,
  type WebhookLog,
  type WebhookTx,
  contentsOf,
  describeContents,
  isEmptyContents,
  missingContents,
} from '@tributary/schema';
import { formatUnits } from 'viem';
import { buildNftItems } from './buildNftItems.ts';
import type { CompiledStream } from './compileStream.ts';

/** keccak256("Transfer(address,address,uint256)"), from the evm package (one place for signatures). */
export const TRANSFER_TOPIC = TRANSFER_TOPIC0;
/** keccak256("Approval(address,address,uint256)") */
export const APPROVAL_TOPIC = APPROVAL_TOPIC0;

export interface BlockMatch {
  body: WebhookBody;
  logsCount: number;
  txsCount: number;
}

export const topicAddress = (topic: string | undefined) =>
  topic && /^0x0{24}[0-9a-f]{40}$/.test(topic) ? `0x${topic.slice(26)}` : undefined;

/**
 * The filter fields of a log under a stream's ABI event: its decoded parameters plus the two
 * built-in fields. Decoded once per (log, event shape) and shared by every stream of the block
 * with that event (many streams filter on the same Transfer): a per-log memo that dies with the
 * block event. The fields are only read by filters.
 */
const decodedFields = new WeakMap<ChainLog, Map<string, Record<string, unknown> | null>>();
function filterFields(
  stream: CompiledStream,
  log: ChainLog,
  spam: (address: string) => boolean,
): Record<string, unknown> | undefined {
  const event = stream.events.get(log.topics[0] ?? '');
  if (!event) return undefined;
  let perLog = decodedFields.get(log);
  if (!perLog) {
    perLog = new Map();
    decodedFields.set(log, perLog);
  }
  let fields = perLog.get(event.shape);
  if (fields === undefined) {
    const decoded = event.decode(log.topics, log.data);
    fields = decoded
      ? {
          ...decoded,
          moralis_streams_contract_address: log.address,
          moralis_streams_possibleSpam: spam(log.address),
        }
      : null;
    perLog.set(event.shape, fields);
  }
  return fields ?? undefined;
}

function logMatches(stream: CompiledStream, log: ChainLog, spam: (address: string) => boolean): boolean {
  const topic0 = log.topics[0];
  if (stream.topic0.size > 0 && (topic0 === undefined || !stream.topic0.has(topic0))) return false;
  const addressHit =
    stream.config.allAddresses === true ||
    stream.addresses.has(log.address) ||
    log.topics.slice(1).some((t) => {
      const a = topicAddress(t);
      return a !== undefined && stream.addresses.has(a);
    });
  if (!addressHit) return false;
  const filter = topic0 === undefined ? undefined : stream.filters.get(topic0);
  if (!filter) return true;
  const fields = filterFields(stream, log, spam);
  return fields !== undefined && filter(fields);
}

/**
 * Whether the stream's ABI can decode a log the webhook would carry: the SDK's parsedLogs decodes
 * every log with the webhook's `abi` and throws on one that does not fit. An ERC20 Transfer (3
 * topics) and an ERC721 Transfer (4 topics) share topic0, so a stream whose ABI names one of them
 * matches the other too: such a log gives its erc20Transfers or nftTransfers item (its shape
 * decides, not the ABI) but is left out of `logs`. Logs of a topic0 the ABI does not name
 * (includeAllTxLogs, streams without an ABI) are carried as before.
 */
function abiCovers(stream: CompiledStream, log: ChainLog): boolean {
  const event = stream.events.get(log.topics[0] ?? '');
  return event === undefined || event.item.anonymous === true || event.topicCount === log.topics.length;
}

const toWebhookLog = (log: ChainLog): WebhookLog => ({
  logIndex: String(log.logIndex),
  transactionHash: log.transactionHash,
  address: log.address,
  data: log.data,
  topic0: log.topics[0] ?? null,
  topic1: log.topics[1] ?? null,
  topic2: log.topics[2] ?? null,
  topic3: log.topics[3] ?? null,
});

const toWebhookTx = (tx: ChainTransaction): WebhookTx => ({
  hash: tx.hash,
  gas: tx.gas,
  gasPrice: tx.gasPrice,
  nonce: String(tx.nonce),
  input: tx.input,
  transactionIndex: String(tx.transactionIndex),
  fromAddress: tx.from,
  toAddress: tx.to,
  value: tx.value,
  type: String(tx.type),
  v: tx.v,
  r: tx.r,
  s: tx.s,
  receiptCumulativeGasUsed: tx.receipt.cumulativeGasUsed,
  receiptGasUsed: tx.receipt.gasUsed,
  receiptContractAddress: tx.receipt.contractAddress,
  receiptRoot: tx.receipt.root,
  receiptStatus: tx.receipt.status === null ? null : String(tx.receipt.status),
});

/** The ERC20 view of a Transfer or Approval log: both are (address indexed, address indexed, uint256). */
function erc20Movement(log: ChainLog, topic: string, token: KnownToken | undefined) {
  if (log.topics[0] !== topic || log.topics.length !== 3 || log.data.length !== 66) return undefined;
  const a = topicAddress(log.topics[1]);
  const b = topicAddress(log.topics[2]);
  if (!a || !b) return undefined;
  const value = BigInt(log.data);
  const decimals = token?.decimals ?? null;
  return {
    a,
    b,
    rest: {
      transactionHash: log.transactionHash,
      logIndex: String(log.logIndex),
      contract: log.address,
      value: value.toString(),
      tokenName: token?.name ?? '',
      tokenSymbol: token?.symbol ?? '',
      tokenDecimals: decimals === null ? '' : String(decimals),
      valueWithDecimals: decimals === null ? '' : formatUnits(value, decimals),
      possibleSpam: token?.possibleSpam === true,
    },
  };
}

function erc20Transfer(log: ChainLog, token: KnownToken | undefined): WebhookErc20Transfer | undefined {
  const m = erc20Movement(log, TRANSFER_TOPIC, token);
  if (!m) return undefined;
  const { transactionHash, logIndex, contract, ...amount } = m.rest;
  return { transactionHash, logIndex, contract, from: m.a, to: m.b, ...amount };
}

function erc20Approval(log: ChainLog, token: KnownToken | undefined): WebhookErc20Approval | undefined {
  const m = erc20Movement(log, APPROVAL_TOPIC, token);
  if (!m) return undefined;
  const { transactionHash, logIndex, contract, ...amount } = m.rest;
  return { transactionHash, logIndex, contract, owner: m.a, spender: m.b, ...amount };
}

/**
 * A stream was about to be evaluated against a block that lacks a part the stream reads: the
 * webhook would silently miss items. The caller completes the block first (the matcher reads the
 * part from the node); reaching this is a bug of that caller, never a quiet empty match.
 */
export class IncompleteBlockError extends Error {
  override readonly name = 'IncompleteBlockError';
  readonly retryable = false;
  constructor(streamId: string, event: FullBlockEvent, missing: string) {
    super(
      `stream ${streamId} reads ${missing}, which block ${event.block.number} (${event.block.hash}) does not carry`,
    );
  }
}

/** Items of a block that touch a stream's addresses (from the stream index); absent: scan the whole block. */
export interface MatchCandidates {
  logs: ChainLog[];
  txs: ChainTransaction[];
  internal: InternalTransaction[];
}

/** Per-event lookups shared by every stream evaluated against it. */
interface EventLookups {
  logsByTx: Map<string, ChainLog[]>;
  txByHash: Map<string, ChainTransaction>;
  /** Name, symbol and decimals the block event carries for its tokens. */
  tokens: Map<string, KnownToken>;
}
const lookups = new WeakMap<FullBlockEvent, EventLookups>();
function lookupsOf(event: FullBlockEvent): EventLookups {
  let l = lookups.get(event);
  if (!l) {
    const logsByTx = new Map<string, ChainLog[]>();
    for (const log of event.logs) {
      const list = logsByTx.get(log.transactionHash);
      if (list) list.push(log);
      else logsByTx.set(log.transactionHash, [log]);
    }
    l = {
      logsByTx,
      txByHash: new Map(event.transactions.map((t) => [t.hash, t])),
      tokens: new Map<string, KnownToken>([
        ...event.tokens.map((t) => [t.address, t] as const),
        ...(event.tokenInfo ?? []).map((t) => [t.address, t] as const),
      ]),
    };
    lookups.set(event, l);
  }
  return l;
}

const byLogIndex = (a: ChainLog, b: ChainLog) => a.logIndex - b.logIndex;

/**
 * Evaluates one stream against one block: the webhook body (retries 0, no triggers or native
 * balances yet: see enrichMatch) when anything matched, undefined otherwise. Pure: token
 * metadata and spam flags come from the caller.
 */
export function matchBlock(
  stream: CompiledStream,
  event: FullBlockEvent,
  tokenInfo: (address: string) => KnownToken | undefined = () => undefined,
  candidates?: MatchCandidates,
): BlockMatch | undefined {
  const missing = missingContents(contentsOf(event), stream.reads);
  if (!isEmptyContents(missing)) throw new IncompleteBlockError(stream.id, event, describeContents(missing));
  const { config, addresses } = stream;
  const all = config.allAddresses === true;
  const lk = lookupsOf(event);
  const spam = (address: string) => tokenInfo(address)?.possibleSpam === true;
  const dropSpam = config.filterPossibleSpamAddresses === true;
  const watched = (a: string | null) => a !== null && addresses.has(a);
  const logPool = all || !candidates ? event.logs : candidates.logs;
  const matchedLogs = config.includeContractLogs
    ? logPool.filter((l) => logMatches(stream, l, spam) && !(dropSpam && spam(l.address)))
    : [];
  const txPool = all || !candidates ? event.transactions : candidates.txs;
  const txSet = new Set<ChainTransaction>(
    config.includeNativeTxs
      ? txPool.filter(
          (tx) => all || watched(tx.from) || watched(tx.to) || watched(tx.receipt.contractAddress),
        )
      : [],
  );
  // advancedOptions[].includeNativeTxs: the transaction of every log matched under that topic0.
  if (stream.nativeTxsOfTopics.size > 0) {
    for (const l of matchedLogs) {
      const tx = stream.nativeTxsOfTopics.has(l.topics[0] ?? '')
        ? lk.txByHash.get(l.transactionHash)
        : undefined;
      if (tx) txSet.add(tx);
    }
  }
  const txs = [...txSet].sort((a, b) => a.transactionIndex - b.transactionIndex);
  const internalPool = all || !candidates ? event.internalTransactions : candidates.internal;
  const internal = config.includeInternalTxs
    ? internalPool.filter((t) => all || watched(t.from) || watched(t.to))
    : [];
  let logs = matchedLogs;
  if (config.includeAllTxLogs) {
    const hashes = new Set([
      ...matchedLogs.map((l) => l.transactionHash),
      ...txs.map((t) => t.hash),
      ...internal.map((t) => t.transactionHash),
    ]);
    logs = [...hashes]
      .flatMap((h) => lk.logsByTx.get(h) ?? [])
      .filter((l) => !(dropSpam && spam(l.address)))
      .sort(byLogIndex);
  }
  if (logs.length === 0 && txs.length === 0 && internal.length === 0) return undefined;
  const tokenOf = (address: string): KnownToken | undefined => {
    const known = tokenInfo(address);
    const first = lk.tokens.get(address);
    return first ? { ...first, possibleSpam: known?.possibleSpam ?? false } : known;
  };
  const erc20Transfers = logs
    .map((l) => erc20Transfer(l, tokenOf(l.address)))
    .filter((t): t is WebhookErc20Transfer => t !== undefined);
  const erc20Approvals = logs
    .map((l) => erc20Approval(l, tokenOf(l.address)))
    .filter((t): t is WebhookErc20Approval => t !== undefined);
  const nft = buildNftItems(logs, tokenOf);
  const carried = logs.filter((l) => abiCovers(stream, l));
  const items =
    erc20Transfers.length + erc20Approvals.length + nft.nftTransfers.length + nft.nftTokenApprovals.length;
  // Matched logs that are neither carried nor items leave nothing to send.
  if (carried.length === 0 && txs.length === 0 && internal.length === 0 && items === 0) return undefined;
  const body: WebhookBody = {
    confirmed: event.type === 'confirmed',
    chainId: `0x${event.chainId.toString(16)}`,
    abi: config.abi ?? [],
    streamId: stream.id,
    tag: config.tag,
    retries: 0,
    block: {
      number: String(event.block.number),
      hash: event.block.hash,
      timestamp: String(event.block.timestamp),
    },
    logs: carried.map(toWebhookLog),
    txs: txs.map(toWebhookTx),
    txsInternal: internal.map((t) => ({
      from: t.from,
      to: t.to,
      value: t.value,
      transactionHash: t.transactionHash,
      gas: t.gas,
    })),
    erc20Transfers,
    erc20Approvals,
    nftTransfers: nft.nftTransfers,
    nftApprovals: nft.nftApprovals,
    nftTokenApprovals: nft.nftTokenApprovals,
    nativeBalances: [],
  };
  return { body, logsCount: body.logs.length, txsCount: body.txs.length };
}
