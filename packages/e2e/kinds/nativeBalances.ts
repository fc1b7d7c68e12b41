import type { Address } from 'viem';
import { nativeTxItems } from './chainItems.ts';
import { type StreamKind, addressSet } from './streamKind.ts';
import { walletActivity } from './walletActivity.ts';
import { itemKey } from './webhookItems.ts';

/**
 * `getNativeBalances` on native transactions: the sender and the recipient of each transaction of
 * a watched wallet, with its balance at the webhook's block. Expected: the transactions, and each
 * of those addresses with the balance the chain reports at that block.
 */
export const nativeBalances: StreamKind = {
  name: 'nativeBalances',
  title: 'getNativeBalances',
  async deploy(setup) {
    const { wallet, act } = walletActivity(setup);
    return {
      streams: [
        {
          label: 'nativeBalances',
          body: {
            includeNativeTxs: true,
            getNativeBalances: [{ selectors: ['$fromAddress', '$toAddress'], type: 'tx' }],
          },
          addresses: [wallet],
        },
      ],
      act,
      async expect(s, block, chain) {
        const watched = addressSet(s.addresses);
        const txs = block.transactions.filter(
          (t) => watched.has(t.from) || (t.to !== null && watched.has(t.to)),
        );
        const parties = [...new Set(txs.flatMap((t) => (t.to ? [t.from, t.to] : [t.from])))];
        const blockNumber = BigInt(block.number);
        const balances = await Promise.all(
          parties.map(async (a) =>
            itemKey.nativeBalance(a, await chain.getBalance({ address: a as Address, blockNumber })),
          ),
        );
        return [...nativeTxItems(block, watched), ...balances];
      },
    };
  },
};
