import { bulkTransferEmitterAbi } from '@tributary/contracts';
import { createDevnetClient, deployBulkTransferEmitter } from '@tributary/devnet';
import { type PublicClient, createPublicClient, http } from 'viem';

/** Per block as the node has it: hash, parent and logs (the oracle that fetched data is compared with). */
export interface ChainBlock {
  number: number;
  hash: string;
  parentHash: string;
  logs: [number, string, string, string[], string][];
}

/**
 * Mines blocks with many real ERC20 Transfer logs each (`logsPerBlock[i]` logs in the i-th block,
 * empty blocks for 0) on the anvil at rpcUrl; returns the head.
 */
export async function buildLogChain(rpcUrl: string, logsPerBlock: readonly number[]): Promise<number> {
  const client = createDevnetClient({ rpcUrl });
  const bulk = await deployBulkTransferEmitter(client);
  let nonce = await client.getTransactionCount({ address: client.account.address, blockTag: 'pending' });
  let last: `0x${string}` | undefined;
  for (const [i, count] of logsPerBlock.entries()) {
    if (count === 0) {
      await client.request({
        method: 'anvil_mine' as 'eth_chainId',
        params: ['0x1'] as unknown as undefined,
      });
      continue;
    }
    last = await client.writeContract({
      address: bulk,
      abi: bulkTransferEmitterAbi,
      functionName: 'emitTransfers',
      args: [`0x${(0x1000 + i * 1000).toString(16).padStart(40, '0')}`, BigInt(count), 1n],
      gas: BigInt(count * 2_600 + 100_000),
      nonce: nonce++,
    });
    // One transaction per block: wait for each (automine) so that empty blocks fall between.
    await client.waitForTransactionReceipt({ hash: last, pollingInterval: 20 });
  }
  return Number(await client.getBlockNumber({ cacheTime: 0 }));
}

/** Blocks 0..head straight from the node (no proxy). */
export async function readChain(rpcUrl: string, head: number): Promise<ChainBlock[]> {
  const client: PublicClient = createPublicClient({ transport: http(rpcUrl) });
  const logs = await client.getLogs({ fromBlock: 0n, toBlock: BigInt(head) });
  const out: ChainBlock[] = [];
  for (let n = 0; n <= head; n++) {
    const b = await client.getBlock({ blockNumber: BigInt(n) });
    out.push({
      number: n,
      hash: b.hash,
      parentHash: b.parentHash,
      logs: logs
        .filter((l) => Number(l.blockNumber) === n)
        .map((l) => [l.logIndex, l.transactionHash, l.address.toLowerCase(), l.topics, l.data]),
    });
  }
  return out;
}

/** The same shape from what the follower fetched or published. */
export function asChainBlock(b: {
  header: { number: number; hash: string; parentHash: string };
  logs: { logIndex: number; transactionHash: string; address: string; topics: string[]; data: string }[];
}): ChainBlock {
  return {
    number: b.header.number,
    hash: b.header.hash,
    parentHash: b.header.parentHash,
    logs: b.logs.map((l) => [l.logIndex, l.transactionHash, l.address, l.topics, l.data]),
  };
}
