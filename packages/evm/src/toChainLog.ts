import type { BlockHeader, ChainLog } from '@tributary/schema';
import { hexToNumber } from './rpcHex.ts';
import type { RpcBlock, RpcLog } from './rpcTypes.ts';

/** A node's block header as block events carry it (lower-case hex, numbers). */
export function toBlockHeader(b: RpcBlock): BlockHeader {
  return {
    number: hexToNumber(b.number),
    hash: b.hash.toLowerCase() as `0x${string}`,
    parentHash: b.parentHash.toLowerCase() as `0x${string}`,
    timestamp: hexToNumber(b.timestamp),
  };
}

/** A node's log as block events carry it. */
export function toChainLog(l: RpcLog): ChainLog {
  return {
    logIndex: hexToNumber(l.logIndex),
    transactionHash: l.transactionHash.toLowerCase() as `0x${string}`,
    transactionIndex: hexToNumber(l.transactionIndex),
    address: l.address.toLowerCase() as `0x${string}`,
    data: l.data.toLowerCase() as `0x${string}`,
    topics: l.topics.map((t) => t.toLowerCase() as `0x${string}`),
  };
}
