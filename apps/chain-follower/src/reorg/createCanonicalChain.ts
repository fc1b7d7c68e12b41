import type { FollowerBlock } from '@tributary/db/chain';

/** The follower's view of the recent canonical chain (mirrors follower_blocks), by height. */
export interface CanonicalChain {
  get(number: number): FollowerBlock | undefined;
  tip(): FollowerBlock | undefined;
  oldest(): number | undefined;
  add(blocks: readonly FollowerBlock[]): void;
  /** Blocks above `number`, newest first (what a reorg to `number` orphans). */
  above(number: number): FollowerBlock[];
  truncateAbove(number: number): void;
  unconfirmedUpTo(number: number): FollowerBlock[];
  markConfirmed(numbers: readonly number[]): void;
  pruneBelow(number: number): void;
}

export function createCanonicalChain(initial: readonly FollowerBlock[]): CanonicalChain {
  const byNumber = new Map<number, FollowerBlock>();
  let min: number | undefined;
  let max: number | undefined;
  const recompute = () => {
    const keys = [...byNumber.keys()];
    min = keys.length ? Math.min(...keys) : undefined;
    max = keys.length ? Math.max(...keys) : undefined;
  };
  const chain: CanonicalChain = {
    get: (n) => byNumber.get(n),
    tip: () => (max === undefined ? undefined : byNumber.get(max)),
    oldest: () => min,
    add(blocks) {
      for (const b of blocks) {
        byNumber.set(b.number, { ...b });
        if (min === undefined || b.number < min) min = b.number;
        if (max === undefined || b.number > max) max = b.number;
      }
    },
    above(n) {
      return [...byNumber.values()].filter((b) => b.number > n).sort((a, b) => b.number - a.number);
    },
    truncateAbove(n) {
      for (const k of [...byNumber.keys()]) if (k > n) byNumber.delete(k);
      recompute();
    },
    unconfirmedUpTo(n) {
      return [...byNumber.values()]
        .filter((b) => !b.confirmed && b.number <= n)
        .sort((a, b) => a.number - b.number);
    },
    markConfirmed(numbers) {
      for (const n of numbers) {
        const b = byNumber.get(n);
        if (b) b.confirmed = true;
      }
    },
    pruneBelow(n) {
      if (min === undefined || min >= n) return;
      for (const k of [...byNumber.keys()]) if (k < n) byNumber.delete(k);
      recompute();
    },
  };
  chain.add(initial);
  return chain;
}
