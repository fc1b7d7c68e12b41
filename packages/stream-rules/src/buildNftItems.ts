import { type NftEvent, decodeNftEvent } from '@tributary/evm';
import type {
  ChainLog,
  KnownToken,
  WebhookErc1155Approval,
  WebhookErc721Approval,
  WebhookNftApproval,
  WebhookNftMetadata,
  WebhookNftTransfer,
} from '@tributary/schema';

export interface NftItems {
  nftTransfers: WebhookNftTransfer[];
  nftTokenApprovals: WebhookNftApproval[];
  /** The deprecated grouping: ERC721 Approvals, and ApprovalForAll of ERC1155 contracts. */
  nftApprovals: { ERC721: WebhookErc721Approval[]; ERC1155: WebhookErc1155Approval[] };
}

/**
 * The NFT items of a webhook's logs, in log order: one nftTransfers entry per token id moved
 * (an ERC1155 TransferBatch gives one per id, all with the batch's logIndex), one
 * nftTokenApprovals entry per Approval or ApprovalForAll, and the deprecated nftApprovals.
 * Events are recognized by their shape (decodeNftEvent), never by the stream's ABI. The
 * standard of an ApprovalForAll, which both standards emit alike, is the one its contract
 * answers to ERC165 (`contractType`, read by the follower); when unknown it is "" and the
 * approval is left out of the deprecated lists, which are split by standard.
 */
export function buildNftItems(
  logs: readonly ChainLog[],
  tokenOf: (address: string) => KnownToken | undefined,
): NftItems {
  const out: NftItems = {
    nftTransfers: [],
    nftTokenApprovals: [],
    nftApprovals: { ERC721: [], ERC1155: [] },
  };
  for (const log of logs) {
    const event = decodeNftEvent(log);
    if (event) addItems(out, log, event, tokenOf(log.address));
  }
  return out;
}

function addItems(out: NftItems, log: ChainLog, event: NftEvent, token: KnownToken | undefined): void {
  const root = {
    transactionHash: log.transactionHash,
    logIndex: String(log.logIndex),
    contract: log.address,
  };
  const meta = (
    standard: WebhookNftMetadata['tokenContractType'] | null | undefined,
  ): WebhookNftMetadata => ({
    tokenContractType: standard ?? '',
    tokenName: token?.name ?? '',
    tokenSymbol: token?.symbol ?? '',
  });
  switch (event.type) {
    case 'transfer':
      for (const { tokenId, amount } of event.items) {
        out.nftTransfers.push({
          ...root,
          ...meta(event.standard),
          operator: event.operator,
          from: event.from,
          to: event.to,
          tokenId,
          amount,
          possibleSpam: token?.possibleSpam === true,
        });
      }
      return;
    case 'approval':
      out.nftTokenApprovals.push({
        ...root,
        ...meta(event.standard),
        account: event.owner,
        operator: event.approved,
        approvedAll: false,
        tokenId: event.tokenId,
      });
      out.nftApprovals.ERC721.push({
        ...root,
        ...meta(event.standard),
        owner: event.owner,
        approved: event.approved,
        tokenId: event.tokenId,
      });
      return;
    case 'approvalForAll': {
      const standard = token?.contractType;
      out.nftTokenApprovals.push({
        ...root,
        ...meta(standard),
        account: event.owner,
        operator: event.operator,
        approvedAll: event.approved,
        tokenId: null,
      });
      if (standard === 'ERC1155') {
        out.nftApprovals.ERC1155.push({
          ...root,
          ...meta(standard),
          account: event.owner,
          operator: event.operator,
          approved: event.approved,
        });
      }
      return;
    }
    default: {
      const never: never = event;
      throw new Error(`unknown NFT event ${JSON.stringify(never)}`);
    }
  }
}
