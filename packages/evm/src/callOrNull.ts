import type { Address, PublicClient } from 'viem';

/** An eth_call at a block, or null when it reverts or fails (metadata reads that may not exist). */
export async function callOrNull(
  client: PublicClient,
  to: Address,
  data: `0x${string}`,
  blockNumber: bigint,
): Promise<`0x${string}` | null> {
  try {
    const { data: out } = await client.call({ to, data, blockNumber });
    return out ?? null;
  } catch {
    return null;
  }
}
