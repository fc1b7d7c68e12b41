import {
  APPROVAL_TOPIC0,
  TRANSFER_BATCH_TOPIC0,
  TRANSFER_SINGLE_TOPIC0,
  TRANSFER_TOPIC0,
} from '@tributary/evm';
import { type Abi, type AbiEvent, decodeAbiParameters, toEventSelector } from 'viem';
import type { ChainBlock, ChainLog } from './readChainBlocks.ts';
import { itemKey } from './webhookItems.ts';

/**
 * What a user expects a stream to carry, read from the chain's own records by the standards'
 * rules (ERC20, ERC721, ERC1155 event shapes) and the stream interface's documented matching:
 * a log is a stream's when its contract, or an address in one of its indexed topics, is watched;
 * a transaction when its sender, recipient or created contract is; an internal transaction when
 * its caller or callee is.
 */
export const topicAddress = (topic: string | undefined): string | undefined =>
  topic && /^0x0{24}[0-9a-f]{40}$/.test(topic) ? `0x${topic.slice(26)}` : undefined;

export function logTouches(log: ChainLog, addresses: ReadonlySet<string>): boolean {
  if (addresses.has(log.address)) return true;
  return log.topics.slice(1).some((t) => {
    const a = topicAddress(t);
    return a !== undefined && addresses.has(a);
  });
}

/** The erc20Transfers / erc20Approvals item of a log shaped as the ERC20 event (3 topics, a 32-byte value). */
export function erc20Items(log: ChainLog): string[] {
  const [topic0, t1, t2] = log.topics;
  if (log.topics.length !== 3 || log.data.length !== 66) return [];
  const a = topicAddress(t1);
  const b = topicAddress(t2);
  if (!a || !b) return [];
  const value = BigInt(log.data);
  if (topic0 === TRANSFER_TOPIC0) return [itemKey.erc20Transfer(log.logIndex, log.address, a, b, value)];
  if (topic0 === APPROVAL_TOPIC0) return [itemKey.erc20Approval(log.logIndex, log.address, a, b, value)];
  return [];
}

/** The nftTransfers items of a log: an ERC721 Transfer (token id indexed), or an ERC1155 TransferSingle / TransferBatch (one per id). */
function nftTransferItems(log: ChainLog): string[] {
  const [topic0, t1, t2, t3] = log.topics;
  if (log.topics.length !== 4) return [];
  if (topic0 === TRANSFER_TOPIC0 && log.data === '0x') {
    const from = topicAddress(t1);
    const to = topicAddress(t2);
    if (!from || !to) return [];
    return [itemKey.nftTransfer(log.logIndex, log.address, from, to, BigInt(t3!), 1n)];
  }
  if (topic0 !== TRANSFER_SINGLE_TOPIC0 && topic0 !== TRANSFER_BATCH_TOPIC0) return [];
  const from = topicAddress(t2);
  const to = topicAddress(t3);
  if (!from || !to) return [];
  let moved: [bigint, bigint][];
  if (topic0 === TRANSFER_SINGLE_TOPIC0) {
    const [id, amount] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], log.data);
    moved = [[id, amount]];
  } else {
    const [ids, amounts] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data);
    moved = ids.map((id, i) => [id, amounts[i]!]);
  }
  return moved.map(([id, amount]) => itemKey.nftTransfer(log.logIndex, log.address, from, to, id, amount));
}

/** The block's transactions sent by, sent to, or creating a watched address, as `txs` items. */
export function nativeTxItems(block: ChainBlock, addresses: ReadonlySet<string>): string[] {
  return block.transactions
    .filter(
      (t) =>
        addresses.has(t.from) ||
        (t.to !== null && addresses.has(t.to)) ||
        (t.contractAddress !== null && addresses.has(t.contractAddress)),
    )
    .map((t) => itemKey.tx(t.hash, t.from, t.to, t.value));
}

/** The block's internal transactions from or to a watched address, as `txsInternal` items. */
export function internalTxItems(block: ChainBlock, addresses: ReadonlySet<string>): string[] {
  return block.internal
    .filter((t) => addresses.has(t.from) || addresses.has(t.to))
    .map((t) => itemKey.internal(t.transactionHash, t.from, t.to, t.value));
}

/** The events of an ABI by topic0, each with the topic count of its logs (topic0 and its indexed arguments). */
export function abiTopicCounts(abi: Abi): Map<string, number> {
  const events = abi.filter((i): i is AbiEvent => i.type === 'event');
  return new Map(events.map((e) => [toEventSelector(e), 1 + e.inputs.filter((p) => p.indexed).length]));
}

/**
 * The items of the logs a stream with `topic0s` and an ABI whose events have `abiTopics` topics
 * matches: each log itself (when the ABI can decode it: its topic count fits) and what it is as
 * an ERC20 or NFT movement.
 */
export function logStreamItems(
  logs: readonly ChainLog[],
  topic0s: ReadonlySet<string>,
  abiTopics: ReadonlyMap<string, number>,
): string[] {
  return logs
    .filter((l) => topic0s.has(l.topics[0] ?? ''))
    .flatMap((l) => [
      ...(abiTopics.get(l.topics[0]!) === l.topics.length ? [itemKey.log(l.logIndex)] : []),
      ...erc20Items(l),
      ...nftTransferItems(l),
    ]);
}
