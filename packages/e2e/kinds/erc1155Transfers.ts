import { demoMultiTokenAbi, demoMultiTokenBytecode } from '@tributary/contracts';
import { TRANSFER_BATCH_TOPIC0, TRANSFER_SINGLE_TOPIC0 } from '@tributary/evm';
import { type Abi, encodeFunctionData } from 'viem';
import { abiTopicCounts, logStreamItems, logTouches } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';

/**
 * ERC1155 transfers of a watched collection: each block mints two ids (TransferSingle) and moves
 * parts of both at once (TransferBatch). Expected: every TransferSingle and TransferBatch log of
 * the collection, in `logs`, and one `nftTransfers` item per id moved.
 */
export const erc1155Transfers: StreamKind = {
  name: 'erc1155Transfers',
  title: 'ERC1155 transfers',
  async deploy(setup) {
    const multi = await setup.driver.deploy(setup.deployer, demoMultiTokenAbi, demoMultiTokenBytecode, [
      'Kind Multi',
      'KMT',
    ]);
    const holder = setup.account(0);
    const sink = setup.account(1).address;
    const abi = demoMultiTokenAbi.filter(
      (i) => i.type === 'event' && (i.name === 'TransferSingle' || i.name === 'TransferBatch'),
    ) as Abi;
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'erc1155Transfers',
          body: {
            includeContractLogs: true,
            topic0: [
              'TransferSingle(address,address,address,uint256,uint256)',
              'TransferBatch(address,address,address,uint256[],uint256[])',
            ],
            abi,
          },
          addresses: [multi],
        },
      ],
      async act(send) {
        const ids = [randomAmount(1n, 1_000_000n), randomAmount(1_000_001n, 2_000_000n)];
        const amounts = [randomAmount(2n, 100n), randomAmount(2n, 100n)];
        const call = (data: `0x${string}`) => send({ from: holder, to: multi, data, gas: 200_000n });
        for (const [i, id] of ids.entries())
          await call(
            encodeFunctionData({
              abi: demoMultiTokenAbi,
              functionName: 'mint',
              args: [holder.address, id, amounts[i]!],
            }),
          );
        await call(
          encodeFunctionData({
            abi: demoMultiTokenAbi,
            functionName: 'safeBatchTransferFrom',
            args: [holder.address, sink, ids, amounts.map((a) => a / 2n), '0x'],
          }),
        );
      },
      async expect(s, block) {
        const watched = addressSet(s.addresses);
        return logStreamItems(
          block.logs.filter((l) => logTouches(l, watched)),
          new Set([TRANSFER_SINGLE_TOPIC0, TRANSFER_BATCH_TOPIC0]),
          topics,
        );
      },
    };
  },
};
