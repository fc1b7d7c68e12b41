import { demoTokenAbi, demoTokenBytecode } from '@tributary/contracts';
import { APPROVAL_TOPIC0 } from '@tributary/evm';
import { type Abi, encodeFunctionData } from 'viem';
import { abiTopicCounts, logStreamItems, logTouches } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';

/**
 * ERC20 approvals of a watched owner: each block it approves one of two spenders for an amount.
 * Expected: every Approval log naming the owner, in `logs` and `erc20Approvals`.
 */
export const erc20Approvals: StreamKind = {
  name: 'erc20Approvals',
  title: 'ERC20 approvals',
  async deploy(setup) {
    const token = await setup.driver.deploy(setup.deployer, demoTokenAbi, demoTokenBytecode, [
      'Allow Token',
      'ALW',
      6,
    ]);
    const owner = setup.account(0);
    const spenders = [setup.account(1).address, setup.account(2).address];
    const abi = demoTokenAbi.filter((i) => i.type === 'event' && i.name === 'Approval') as Abi;
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'erc20Approvals',
          body: { includeContractLogs: true, topic0: ['Approval(address,address,uint256)'], abi },
          addresses: [owner.address],
        },
      ],
      async act(send, round) {
        const data = encodeFunctionData({
          abi: demoTokenAbi,
          functionName: 'approve',
          args: [spenders[round % 2]!, randomAmount(0n, 10n ** 12n)],
        });
        await send({ from: owner, to: token, data, gas: 80_000n });
      },
      async expect(s, block) {
        const watched = addressSet(s.addresses);
        return logStreamItems(
          block.logs.filter((l) => logTouches(l, watched)),
          new Set([APPROVAL_TOPIC0]),
          topics,
        );
      },
    };
  },
};
