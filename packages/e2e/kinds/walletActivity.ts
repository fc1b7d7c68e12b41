import { type Address, parseEther } from 'viem';
import type { SendTx } from './createChainDriver.ts';
import { type KindSetup, randomAmount } from './streamKind.ts';

/**
 * A wallet's native activity, one block at a time: a payer sends it ether, and it sends some on.
 * The wallet is the kind's own account: its stream sees transfers to it and from it.
 */
export function walletActivity(setup: KindSetup): { wallet: Address; act: (send: SendTx) => Promise<void> } {
  const wallet = setup.account(0);
  const payer = setup.account(1);
  const sink = setup.account(2).address;
  return {
    wallet: wallet.address,
    async act(send) {
      const income = randomAmount(parseEther('0.01'), parseEther('0.02'));
      await send({ from: payer, to: wallet.address, value: income, gas: 21_000n });
      await send({ from: wallet, to: sink, value: randomAmount(1n, parseEther('0.005')), gas: 21_000n });
    },
  };
}
