import type { Hex, PublicClient } from 'viem';

export interface ChainLog {
  blockNumber: number;
  blockHash: Hex;
  logIndex: number;
  address: string;
  topics: Hex[];
  data: Hex;
}

/** Every block hash (0..head) and every log of the chain, read in ranges of `step` blocks. */
export async function readChainLogs(
  client: PublicClient,
  head: number,
  step = 200,
): Promise<{ blockHashes: Hex[]; logs: ChainLog[] }> {
  const blockHashes: Hex[] = [];
  for (let n = 0; n <= head; n += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, head - n + 1) }, (_, i) =>
        client.getBlock({ blockNumber: BigInt(n + i) }).then((b) => b.hash),
      ),
    );
    blockHashes.push(...batch);
  }
  const logs: ChainLog[] = [];
  for (let from = 0; from <= head; from += step) {
    const to = Math.min(head, from + step - 1);
    for (const l of await client.getLogs({ fromBlock: BigInt(from), toBlock: BigInt(to) })) {
      logs.push({
        blockNumber: Number(l.blockNumber),
        blockHash: l.blockHash,
        logIndex: l.logIndex,
        address: l.address.toLowerCase(),
        topics: l.topics as Hex[],
        data: l.data,
      });
    }
  }
  return { blockHashes, logs };
}
