import { nativeTxItems } from './chainItems.ts';
import { type StreamKind, addressSet } from './streamKind.ts';
import { walletActivity } from './walletActivity.ts';

/**
 * Removal notices (`notifyRemovals`): a wallet's native transfers, on a stream that asks for a
 * notice for each block a reorg orphans after its unconfirmed webhook. Its webhooks are expected
 * as native transfers are; the count expects a notice, with the unconfirmed webhook's items, for
 * every orphaned block whose unconfirmed webhook arrived.
 */
export const removalNotices: StreamKind = {
  name: 'removalNotices',
  title: 'removal notices',
  async deploy(setup) {
    const { wallet, act } = walletActivity(setup);
    return {
      streams: [
        {
          label: 'removalNotices',
          body: { includeNativeTxs: true, notifyRemovals: true },
          addresses: [wallet],
        },
      ],
      act,
      expect: async (s, block) => nativeTxItems(block, addressSet(s.addresses)),
    };
  },
};
