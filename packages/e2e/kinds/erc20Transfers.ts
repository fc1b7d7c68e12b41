import { demoTokenAbi, demoTokenBytecode } from '@tributary/contracts';
import { TRANSFER_SIGNATURE, TRANSFER_TOPIC0, erc20TransferEventAbi } from '@tributary/evm';
import { encodeFunctionData } from 'viem';
import { abiTopicCounts, logStreamItems, logTouches } from './chainItems.ts';
import { type StreamKind, addressSet, randomAmount } from './streamKind.ts';

/**
 * ERC20 transfers to and from a watched wallet: each block the wallet is minted tokens and sends
 * some on. Expected: every Transfer log naming the wallet, in `logs` and `erc20Transfers`.
 */
export const erc20Transfers: StreamKind = {
  name: 'erc20Transfers',
  title: 'ERC20 transfers',
  async deploy(setup) {
    const token = await setup.driver.deploy(setup.deployer, demoTokenAbi, demoTokenBytecode, [
      'Kind Token',
      'KIND',
      18,
    ]);
    const wallet = setup.account(0);
    const sink = setup.account(1).address;
    const abi = [erc20TransferEventAbi];
    const topics = abiTopicCounts(abi);
    return {
      streams: [
        {
          label: 'erc20Transfers',
          body: { includeContractLogs: true, topic0: [TRANSFER_SIGNATURE], abi },
          addresses: [wallet.address],
        },
      ],
      async act(send) {
        const minted = randomAmount(10n ** 18n, 10n ** 20n);
        const call = (functionName: 'mint' | 'transfer', args: readonly [`0x${string}`, bigint]) =>
          send({
            from: wallet,
            to: token,
            data: encodeFunctionData({ abi: demoTokenAbi, functionName, args }),
            gas: 120_000n,
          });
        await call('mint', [wallet.address, minted]);
        await call('transfer', [sink, randomAmount(1n, minted)]);
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
