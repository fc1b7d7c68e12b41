import { demoTokenAbi, demoTokenBytecode } from '@tributary/contracts';
import { TRANSFER_SIGNATURE, TRANSFER_TOPIC0, erc20TransferEventAbi } from '@tributary/evm';
import { type Address, encodeFunctionData } from 'viem';
import { abiTopicCounts, erc20Items, logStreamItems, logTouches, topicAddress } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';
import { itemKey } from './webhookItems.ts';

const balanceOf = {
  name: 'balanceOf',
  type: 'function',
  stateMutability: 'view',
  inputs: [{ name: 'owner', type: 'address' }],
  outputs: [{ name: 'balance', type: 'uint256' }],
} as const;

/**
 * A trigger: on each ERC20 transfer of a token, `balanceOf(to)` read at the webhook's block.
 * Expected: the token's Transfer logs and items, each transfer with `triggers:
 * [{name: "balance", value: <the recipient's balance at that block>}]` (an error result never fits).
 */
export const trigger: StreamKind = {
  name: 'trigger',
  title: 'trigger',
  async deploy(setup) {
    const token = await setup.driver.deploy(setup.deployer, demoTokenAbi, demoTokenBytecode, [
      'Trigger Token',
      'TRG',
      18,
    ]);
    const holder = setup.account(0);
    const sinks = [setup.account(1).address, setup.account(2).address];
    const abi = [erc20TransferEventAbi];
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'trigger',
          body: {
            includeContractLogs: true,
            topic0: [TRANSFER_SIGNATURE],
            abi,
            triggers: [
              {
                type: 'erc20transfer',
                contractAddress: '$contract',
                functionAbi: balanceOf,
                inputs: ['$to'],
              },
            ],
          },
          addresses: [token],
        },
      ],
      async act(send, round) {
        const minted = randomAmount(10n ** 18n, 10n ** 20n);
        const call = (functionName: 'mint' | 'transfer', args: readonly [`0x${string}`, bigint]) =>
          send({
            from: holder,
            to: token,
            data: encodeFunctionData({ abi: demoTokenAbi, functionName, args }),
            gas: 120_000n,
          });
        await call('mint', [holder.address, minted]);
        await call('transfer', [sinks[round % 2]!, randomAmount(1n, minted)]);
      },
      async expect(s, block, chain) {
        const watched = addressSet(s.addresses);
        const logs = block.logs.filter((l) => logTouches(l, watched) && l.topics[0] === TRANSFER_TOPIC0);
        const results = await Promise.all(
          logs.flatMap((l) =>
            erc20Items(l).map(async (item) => {
              const balance = await chain.readContract({
                address: l.address as Address,
                abi: [balanceOf],
                functionName: 'balanceOf',
                args: [topicAddress(l.topics[2]) as Address],
                blockNumber: BigInt(block.number),
              });
              return itemKey.trigger(item, 'balance', balance.toString());
            }),
          ),
        );
        return [...logStreamItems(logs, new Set([TRANSFER_TOPIC0]), topics), ...results];
      },
    };
  },
};
