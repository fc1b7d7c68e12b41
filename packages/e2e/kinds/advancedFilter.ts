import { demoTokenAbi, demoTokenBytecode } from '@tributary/contracts';
import { TRANSFER_SIGNATURE, TRANSFER_TOPIC0, erc20TransferEventAbi } from '@tributary/evm';
import { encodeFunctionData } from 'viem';
import { abiTopicCounts, logStreamItems, logTouches } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';

const THRESHOLD = 1_000n;

/**
 * An advanced filter (`advancedOptions`): a token's Transfer logs whose value is above 1,000.
 * Each block mints above it and moves an amount on either side of it. Expected:
 * the token's Transfer logs above the threshold, in `logs` and `erc20Transfers`.
 */
export const advancedFilter: StreamKind = {
  name: 'advancedFilter',
  title: 'advanced filter',
  async deploy(setup) {
    const token = await setup.driver.deploy(setup.deployer, demoTokenAbi, demoTokenBytecode, [
      'Filter Token',
      'FLT',
      0,
    ]);
    const holder = setup.account(0);
    const sink = setup.account(1).address;
    const abi = [erc20TransferEventAbi];
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'advancedFilter',
          body: {
            includeContractLogs: true,
            topic0: [TRANSFER_SIGNATURE],
            abi,
            advancedOptions: [
              { topic0: TRANSFER_SIGNATURE, filter: { gt: ['value', THRESHOLD.toString()] } },
            ],
          },
          addresses: [token],
        },
      ],
      async act(send) {
        // The mint is always above the threshold (every block owes the stream something, so a run
        // can never owe it nothing by chance); the transfer falls on either side of it.
        const minted = randomAmount(THRESHOLD + 1n, 3n * THRESHOLD);
        const call = (functionName: 'mint' | 'transfer', args: readonly [`0x${string}`, bigint]) =>
          send({
            from: holder,
            to: token,
            data: encodeFunctionData({ abi: demoTokenAbi, functionName, args }),
            gas: 120_000n,
          });
        await call('mint', [holder.address, minted]);
        await call('transfer', [sink, randomAmount(1n, minted)]);
      },
      async expect(s, block) {
        const watched = addressSet(s.addresses);
        const above = block.logs.filter(
          (l) => logTouches(l, watched) && l.topics[0] === TRANSFER_TOPIC0 && BigInt(l.data) > THRESHOLD,
        );
        return logStreamItems(above, new Set([TRANSFER_TOPIC0]), topics);
      },
    };
  },
};
