import type { ChainLog } from '@tributary/schema';
import { decodeAbiParameters } from 'viem';
import {
  APPROVAL_FOR_ALL_TOPIC0,
  APPROVAL_TOPIC0,
  TRANSFER_BATCH_TOPIC0,
  TRANSFER_SINGLE_TOPIC0,
  TRANSFER_TOPIC0,
} from './signatures.ts';

/** One token id moved by an NFT transfer, with its amount (always 1 for ERC721). */
interface NftMovement {
  tokenId: string;
  amount: string;
}

/**
 * An ERC721 or ERC1155 event, told apart by its topic0 and its shape alone (never by a stream's
 * ABI): an ERC721 Transfer/Approval has the token id as a third indexed topic (4 topics, no
 * data), which an ERC20 Transfer/Approval (3 topics, the value in data) never has.
 * ApprovalForAll has the same shape in both standards: its contract's standard comes from
 * elsewhere (ERC165, read by the follower).
 */
export type NftEvent =
  | { type: 'transfer'; standard: 'ERC721'; operator: null; from: string; to: string; items: NftMovement[] }
  | {
      type: 'transfer';
      standard: 'ERC1155';
      operator: string;
      from: string;
      to: string;
      items: NftMovement[];
    }
  | { type: 'approval'; standard: 'ERC721'; owner: string; approved: string; tokenId: string }
  | { type: 'approvalForAll'; owner: string; operator: string; approved: boolean };

const ZERO_PADDING = '0x000000000000000000000000';
const addressOf = (topic: string | undefined) =>
  topic?.startsWith(ZERO_PADDING) && topic.length === 66 ? `0x${topic.slice(26).toLowerCase()}` : undefined;
const uintOf = (word: string) => BigInt(word).toString();

export function decodeNftEvent(log: ChainLog): NftEvent | undefined {
  const [topic0, t1, t2, t3] = log.topics;
  switch (topic0) {
    case TRANSFER_TOPIC0:
    case APPROVAL_TOPIC0: {
      if (log.topics.length !== 4 || log.data !== '0x') return undefined;
      const a = addressOf(t1);
      const b = addressOf(t2);
      if (!a || !b || t3 === undefined) return undefined;
      const tokenId = uintOf(t3);
      return topic0 === TRANSFER_TOPIC0
        ? {
            type: 'transfer',
            standard: 'ERC721',
            operator: null,
            from: a,
            to: b,
            items: [{ tokenId, amount: '1' }],
          }
        : { type: 'approval', standard: 'ERC721', owner: a, approved: b, tokenId };
    }
    case TRANSFER_SINGLE_TOPIC0:
    case TRANSFER_BATCH_TOPIC0: {
      if (log.topics.length !== 4) return undefined;
      const operator = addressOf(t1);
      const from = addressOf(t2);
      const to = addressOf(t3);
      if (!operator || !from || !to) return undefined;
      const items = topic0 === TRANSFER_SINGLE_TOPIC0 ? singleItems(log.data) : batchItems(log.data);
      return items ? { type: 'transfer', standard: 'ERC1155', operator, from, to, items } : undefined;
    }
    case APPROVAL_FOR_ALL_TOPIC0: {
      if (log.topics.length !== 3 || log.data.length !== 66) return undefined;
      const owner = addressOf(t1);
      const operator = addressOf(t2);
      const flag = BigInt(log.data);
      if (!owner || !operator || flag > 1n) return undefined;
      return { type: 'approvalForAll', owner, operator, approved: flag === 1n };
    }
    default:
      return undefined;
  }
}

function singleItems(data: string): NftMovement[] | undefined {
  if (data.length !== 130) return undefined;
  return [{ tokenId: uintOf(`0x${data.slice(2, 66)}`), amount: uintOf(`0x${data.slice(66)}`) }];
}

function batchItems(data: `0x${string}`): NftMovement[] | undefined {
  try {
    const [ids, values] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], data);
    if (ids.length !== values.length) return undefined;
    return ids.map((id, i) => ({ tokenId: id.toString(), amount: values[i]!.toString() }));
  } catch {
    return undefined;
  }
}
