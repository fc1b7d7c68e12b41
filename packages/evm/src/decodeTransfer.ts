import type { ChainLog, Erc20Transfer } from '@tributary/schema';
import { TRANSFER_TOPIC0 } from './signatures.ts';

/**
 * An ERC20 Transfer: topic0 = Transfer, from and to indexed (3 topics), value as 32 bytes of data.
 * ERC721 transfers (tokenId indexed: 4 topics) and malformed logs are not ERC20 transfers.
 */
export function decodeTransfer(log: ChainLog): Erc20Transfer | undefined {
  if (log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC0) return undefined;
  if (log.data.length !== 66) return undefined;
  const from = topicToAddress(log.topics[1]!);
  const to = topicToAddress(log.topics[2]!);
  if (!from || !to) return undefined;
  return {
    logIndex: log.logIndex,
    transactionHash: log.transactionHash,
    transactionIndex: log.transactionIndex,
    token: log.address,
    from,
    to,
    value: BigInt(log.data).toString(),
  };
}

/** An address topic has 12 zero bytes of padding; anything else is not an address. */
function topicToAddress(topic: string): `0x${string}` | undefined {
  if (!/^0x0{24}/.test(topic)) return undefined;
  return `0x${topic.slice(26).toLowerCase()}`;
}
