import type { PublicClient } from 'viem';
import type { ChainBlock } from './readChainBlocks.ts';
import type { DeployedKind, KindStream } from './streamKind.ts';

/**
 * What the chain owes one stream: for each block after `after` whose items for the stream are
 * not empty (its kind's expectation), those items, by block hash.
 */
export async function owedWebhooks(
  kind: DeployedKind,
  stream: KindStream,
  blocks: readonly ChainBlock[],
  after: number,
  chain: PublicClient,
): Promise<Map<string, string[]>> {
  const owed = new Map<string, string[]>();
  const due = blocks.filter((b) => b.number > after);
  for (let i = 0; i < due.length; i += 16) {
    const batch = due.slice(i, i + 16);
    const items = await Promise.all(batch.map((b) => kind.expect(stream, b, chain)));
    batch.forEach((b, k) => {
      if (items[k]!.length > 0) owed.set(b.hash, items[k]!);
    });
  }
  return owed;
}
