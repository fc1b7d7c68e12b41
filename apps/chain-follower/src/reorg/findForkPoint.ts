import type { BlockHeader } from '@tributary/schema';
import type { CanonicalChain } from './createCanonicalChain.ts';

/** A reorg deeper than the blocks the follower keeps: it cannot say what to remove. */
export class DeepReorgError extends Error {
  override readonly name = 'DeepReorgError';
}

/**
 * Walks down from `from` until the node's block at a height has the hash we published there:
 * that height is the fork point (the last block both branches share).
 */
export async function findForkPoint(
  chain: CanonicalChain,
  from: number,
  fetchHeader: (n: number) => Promise<BlockHeader | null>,
): Promise<number> {
  const oldest = chain.oldest();
  if (oldest === undefined) throw new DeepReorgError('no known blocks to compare with');
  for (let n = Math.min(from, chain.tip()?.number ?? from); n >= oldest; n--) {
    const ours = chain.get(n);
    if (!ours) continue;
    const theirs = await fetchHeader(n);
    if (theirs && theirs.hash === ours.hash) return n;
  }
  throw new DeepReorgError(
    `reorg deeper than the ${from - oldest + 1} blocks kept (from ${oldest} to ${from})`,
  );
}
