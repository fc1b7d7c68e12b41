import type { ChainLog, Erc20Transfer } from '@tributary/schema';
import { TRANSFER_TOPIC0 } from './signatures.ts';

/**
 * An ERC20 Transfer as a block event carries it: from, to and value, naming its log by index
 * (the log gives token and transaction). topic0 = Transfer, from and to indexed (3 topics), value
 * as 32 bytes of data. ERC721 transfers (tokenId indexed: 4 topics) and malformed logs are not
 * ERC20 transfers.
 */
export function decodeTransfer(log: ChainLog): Erc20Transfer | undefined {
  const topics = log.topics;
  if (topics.length !== 3 || topics[0] !== TRANSFER_TOPIC0) return undefined;
  if (log.data.length !== 66) return undefined;
  const from = topicToAddress(topics[1]!);
  const to = topicToAddress(topics[2]!);
  if (!from || !to) return undefined;
  return { logIndex: log.logIndex, from, to, value: hexToDecimal(log.data) };
}

const ZERO_PADDING = '0x000000000000000000000000';

/** An address topic has 12 zero bytes of padding; anything else is not an address. */
function topicToAddress(topic: string): `0x${string}` | undefined {
  if (!topic.startsWith(ZERO_PADDING)) return undefined;
  return `0x${topic.slice(26).toLowerCase()}`;
}

/** A 0x-prefixed 32-byte hex word as exact decimal digits; small values without a BigInt. */
function hexToDecimal(word: string): string {
  // Up to 13 hex digits (52 bits) is exact in a double.
  let i = 2;
  while (i < word.length && word.charCodeAt(i) === 48) i++;
  if (word.length - i <= 13) return i === word.length ? '0' : Number.parseInt(word.slice(i), 16).toString();
  return BigInt(word).toString();
}
