import type { FollowerBlock } from '@tributary/db/chain';
import type { BlockHeader } from '@tributary/schema';

/** The node serves another chain than the one indexed (a devnet restarted from genesis, another network). */
export class ChainMismatchError extends Error {
  override readonly name = 'ChainMismatchError';
}

/**
 * Returns the node's genesis hash when it is the indexed chain's. The genesis hash stored with the
 * checkpoint identifies the chain; a checkpoint stored before it was recorded is checked through the
 * oldest kept block instead (a reorg window deep, so only another chain lacks it).
 */
export async function verifyChainIdentity(opts: {
  chainId: number;
  storedGenesis: string | null;
  oldestKept: FollowerBlock | undefined;
  fetchHeader: (n: number) => Promise<BlockHeader | null>;
}): Promise<string> {
  const genesis = await opts.fetchHeader(0);
  if (!genesis) throw new Error('node returned no genesis block');
  if (opts.storedGenesis && opts.storedGenesis !== genesis.hash) {
    throw new ChainMismatchError(
      `the node's chain is not the one indexed for chain ${opts.chainId}: its genesis block is ${genesis.hash}, the indexed chain's is ${opts.storedGenesis}`,
    );
  }
  const oldest = opts.oldestKept;
  if (!opts.storedGenesis && oldest) {
    const theirs = await opts.fetchHeader(oldest.number);
    if (theirs?.hash !== oldest.hash) {
      throw new ChainMismatchError(
        `the node's chain is not the one indexed for chain ${opts.chainId}: its block ${oldest.number} is ${theirs?.hash ?? 'missing'}, the indexed one is ${oldest.hash}`,
      );
    }
  }
  return genesis.hash;
}
