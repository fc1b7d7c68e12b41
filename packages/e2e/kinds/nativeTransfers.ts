import { nativeTxItems } from './chainItems.ts';
import { type StreamKind, addressSet } from './streamKind.ts';
import { walletActivity } from './walletActivity.ts';

/**
 * Native transfers to and from a watched wallet (`includeNativeTxs`). Expected: every transaction
 * of the block from or to the wallet, in `txs`.
 */
export const nativeTransfers: StreamKind = {
  name: 'nativeTransfers',
  title: 'native transfers',
  async deploy(setup) {
    const { wallet, act } = walletActivity(setup);
    return {
      streams: [{ label: 'nativeTransfers', body: { includeNativeTxs: true }, addresses: [wallet] }],
      act,
      expect: async (s, block) => nativeTxItems(block, addressSet(s.addresses)),
    };
  },
};
