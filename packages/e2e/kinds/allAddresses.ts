import { TRANSFER_SIGNATURE, TRANSFER_TOPIC0, erc20TransferEventAbi } from '@tributary/evm';
import { abiTopicCounts, logStreamItems } from './chainItems.ts';
import type { StreamKind } from './streamKind.ts';

/**
 * An `allAddresses` stream: the Transfer logs of every contract, by topic0 and the ERC20 ABI.
 * It has no activity of its own: every kind's ERC20 and ERC721 transfers are its. Expected: each
 * ERC20-shaped Transfer in `logs` and `erc20Transfers`; each ERC721 one (which the ERC20 ABI
 * cannot decode) in `nftTransfers` only.
 */
export const allAddresses: StreamKind = {
  name: 'allAddresses',
  title: 'allAddresses',
  async deploy() {
    const abi = [erc20TransferEventAbi];
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'allAddresses',
          body: { includeContractLogs: true, allAddresses: true, topic0: [TRANSFER_SIGNATURE], abi },
          addresses: [],
        },
      ],
      async act() {},
      expect: async (_s, block) => logStreamItems(block.logs, new Set([TRANSFER_TOPIC0]), topics),
    };
  },
};
