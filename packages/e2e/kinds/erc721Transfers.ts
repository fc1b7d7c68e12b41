import { demoNftAbi, demoNftBytecode } from '@tributary/contracts';
import { TRANSFER_SIGNATURE, TRANSFER_TOPIC0 } from '@tributary/evm';
import { type Abi, encodeFunctionData } from 'viem';
import { abiTopicCounts, logStreamItems, logTouches } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';

/**
 * ERC721 transfers of a watched collection: each block mints a new token and moves it on.
 * Expected: every Transfer log of the collection, in `logs` (the stream's ABI is the ERC721
 * event, token id indexed) and `nftTransfers`.
 */
export const erc721Transfers: StreamKind = {
  name: 'erc721Transfers',
  title: 'ERC721 transfers',
  async deploy(setup) {
    const nft = await setup.driver.deploy(setup.deployer, demoNftAbi, demoNftBytecode, ['Kind Nft', 'KNFT']);
    const holder = setup.account(0);
    const sink = setup.account(1).address;
    const abi = demoNftAbi.filter((i) => i.type === 'event' && i.name === 'Transfer') as Abi;
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'erc721Transfers',
          body: { includeContractLogs: true, topic0: [TRANSFER_SIGNATURE], abi },
          addresses: [nft],
        },
      ],
      async act(send) {
        // A token id of this block only: a reorg that drops the mint drops the move with it.
        const id = randomAmount(1n, 2n ** 60n);
        await send({
          from: holder,
          to: nft,
          data: encodeFunctionData({ abi: demoNftAbi, functionName: 'mint', args: [holder.address, id] }),
          gas: 150_000n,
        });
        await send({
          from: holder,
          to: nft,
          data: encodeFunctionData({
            abi: demoNftAbi,
            functionName: 'transferFrom',
            args: [holder.address, sink, id],
          }),
          gas: 150_000n,
        });
      },
      async expect(s, block) {
        const watched = addressSet(s.addresses);
        return logStreamItems(
          block.logs.filter((l) => logTouches(l, watched)),
          new Set([TRANSFER_TOPIC0]),
          topics,
        );
      },
    };
  },
};
