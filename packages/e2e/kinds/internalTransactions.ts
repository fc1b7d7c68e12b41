import { valueForwarderAbi, valueForwarderBytecode } from '@tributary/contracts';
import { encodeFunctionData, parseEther } from 'viem';
import { internalTxItems } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';

/**
 * Internal transactions (`includeInternalTxs`): a contract forwards the value it is sent to a
 * watched recipient, alone (`forward`) or beside another (`forwardMany`). Expected: every call of
 * the block's traces from or to the recipient, in `txsInternal`.
 */
export const internalTransactions: StreamKind = {
  name: 'internalTransactions',
  title: 'internal transactions',
  async deploy(setup) {
    const forwarder = await setup.driver.deploy(
      setup.deployer,
      valueForwarderAbi,
      valueForwarderBytecode,
      [],
    );
    const caller = setup.account(0);
    const recipient = setup.account(1).address;
    const other = setup.account(2).address;
    return {
      streams: [
        { label: 'internalTransactions', body: { includeInternalTxs: true }, addresses: [recipient] },
      ],
      async act(send, round) {
        const value = randomAmount(parseEther('0.001'), parseEther('0.01'));
        const data =
          round % 2 === 0
            ? encodeFunctionData({ abi: valueForwarderAbi, functionName: 'forward', args: [recipient] })
            : encodeFunctionData({
                abi: valueForwarderAbi,
                functionName: 'forwardMany',
                args: [[recipient, other]],
              });
        await send({ from: caller, to: forwarder, data, value, gas: 200_000n });
      },
      expect: async (s, block) => internalTxItems(block, addressSet(s.addresses)),
    };
  },
};
