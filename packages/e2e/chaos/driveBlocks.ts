import type { ChainDriver, MinedBlock } from '../kinds/createChainDriver.ts';
import { readChainBlocks } from '../kinds/readChainBlocks.ts';
import type { DeployedKind } from '../kinds/streamKind.ts';

interface ReorgDone {
  /** The first block the reorg replaced, and how many it orphaned. */
  fromBlock: number;
  depth: number;
  /** Whether the follower had published the orphaned branch's tip before it was replaced. */
  seenByFollower: boolean;
}

/** A block a reorg replaced, read from the chain before it was. */
export interface OrphanedBlock {
  number: number;
  /** The follower had published it (and the blocks after it in its branch) before the reorg. */
  seenByFollower: boolean;
  /** The items each kind's stream (by its label) was owed in it, as its kind expects them. */
  owed: Map<string, string[]>;
}

export interface DriveResult {
  /** Blocks mined with activity (canonical or not). */
  blocks: number;
  /** Blocks that reorgs replaced, by hash. */
  orphaned: Map<string, OrphanedBlock>;
  reorgs: ReorgDone[];
  /** Blocks whose activity failed (a transaction reverted or was not sent): their blocks still count from the chain. */
  errors: string[];
  /** The round number a block mined after these would act with (rounds keep each block's values distinct). */
  nextRound: number;
}

/**
 * The run's blocks: `rounds` blocks spread over `durationMs`, each with the activity of every
 * kind that acts in it (the load kind in every block, the others in a random `share` of them).
 * At the rounds of `reorgsAt` (round -> depth), a reorg: that many blocks with every kind's
 * activity (read back with what each stream is owed in them), a wait (at most `seenTimeoutMs`)
 * for the follower to publish them, then back to before them and one block more than they were,
 * so that the new branch wins. Depths stay below the confirmation depth.
 */
export async function driveBlocks(opts: {
  driver: ChainDriver;
  kinds: readonly DeployedKind[];
  rounds: number;
  durationMs: number;
  share: number;
  reorgsAt: ReadonlyMap<number, number>;
  /** Whether the follower has published block `n` (its checkpoint reached it). */
  followerAt: (n: number) => Promise<boolean>;
  /** Whether the follower is away on purpose (an outage): a reorg then waits for it to be back. */
  followerAway: () => boolean;
  seenTimeoutMs?: number;
  /** Told after each scheduled round (0-based). */
  onRound?: (round: number) => void;
  log: (line: string) => void;
}): Promise<DriveResult> {
  const result: DriveResult = { blocks: 0, orphaned: new Map(), reorgs: [], errors: [], nextRound: 0 };
  let round = 0;
  const mine = async (every = false): Promise<MinedBlock | undefined> => {
    const r = round++;
    const acting = opts.kinds.filter((k) => every || k.load === true || Math.random() < opts.share);
    try {
      const block = await opts.driver.mineBlock(async (send) => {
        await Promise.all(acting.map((k) => k.act(send, r)));
      });
      result.blocks++;
      return block;
    } catch (err) {
      result.errors.push(`round ${r}: ${(err as Error).message}`);
      opts.log(`activity of round ${r} failed: ${(err as Error).message}`);
      return undefined;
    }
  };

  const started = Date.now();
  const pending: number[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    const due = started + (i * opts.durationMs) / opts.rounds;
    if (due > Date.now()) await sleep(due - Date.now());
    const depth = opts.reorgsAt.get(i);
    if (depth !== undefined) pending.push(depth);
    // A reorg the follower cannot see (it is away) retracts nothing: it waits for the follower.
    if (pending.length > 0 && !opts.followerAway()) result.reorgs.push(await reorg(pending.shift()!));
    else await mine();
    opts.onRound?.(i);
  }
  result.nextRound = round;
  return result;

  async function reorg(depth: number): Promise<ReorgDone> {
    const base = await opts.driver.head();
    const snapshot = await opts.driver.snapshot();
    // Every kind acts in the branch that will be orphaned: each has blocks to lose.
    for (let d = 0; d < depth; d++) await mine(true);
    const tip = await opts.driver.head();
    // Read from the chain, not from what mine() returned: a block whose activity failed is mined too.
    const branch = await readChainBlocks(opts.driver.client, base + 1, tip);
    const owed = await Promise.all(
      branch.map(async (block) => {
        const items = new Map<string, string[]>();
        for (const kind of opts.kinds)
          for (const stream of kind.streams)
            items.set(stream.label, await kind.expect(stream, block, opts.driver.client));
        return items;
      }),
    );
    const deadline = Date.now() + (opts.seenTimeoutMs ?? 30_000);
    let seen = false;
    while (!seen && Date.now() < deadline) {
      seen = await opts.followerAt(tip).catch(() => false);
      if (!seen) await sleep(200);
    }
    await opts.driver.revert(snapshot);
    for (let d = 0; d <= branch.length; d++) await mine();
    for (const [i, b] of branch.entries())
      result.orphaned.set(b.hash, { number: b.number, seenByFollower: seen, owed: owed[i]! });
    opts.log(
      `reorg from block ${base + 1}: ${branch.length} blocks orphaned (the follower had ${seen ? '' : 'not '}published them)`,
    );
    return { fromBlock: base + 1, depth: branch.length, seenByFollower: seen };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
