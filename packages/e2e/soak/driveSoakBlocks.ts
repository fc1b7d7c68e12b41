import { bulkTransferEmitterAbi } from '@tributary/contracts';
import type { DevnetClient } from '@tributary/devnet';

export interface BlockDriver {
  /** When the block was mined (its transaction answered by the automining node); recent blocks only. */
  minedAt(block: number): number | undefined;
  /** Blocks and logs mined since the previous call. */
  drain(): { blocks: number; logs: number };
  stop(): Promise<void>;
}

/** How many blocks' mining times are kept: webhooks of older blocks are not timed. */
const KEPT_BLOCKS = 3_600;

/**
 * Mines a block of `logsPerBlock` ERC20 Transfer logs every `blockMs` (one emitTransfers
 * transaction, automined), always to the same recipients, so that per-address streams match every
 * block. A late block is not made up for: the pace is kept from then on.
 */
export function driveSoakBlocks(o: {
  client: DevnetClient;
  emitter: string;
  firstRecipient: string;
  logsPerBlock: number;
  blockMs: number;
  log: (line: string) => void;
}): BlockDriver {
  const mined = new Map<number, number>();
  let counts = { blocks: 0, logs: 0 };
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    let next = Date.now();
    for (let i = 0; !stopped; i++) {
      try {
        const hash = await o.client.writeContract({
          address: o.emitter as `0x${string}`,
          abi: bulkTransferEmitterAbi,
          functionName: 'emitTransfers',
          args: [o.firstRecipient as `0x${string}`, BigInt(o.logsPerBlock), BigInt(i + 1)],
        });
        const at = Date.now();
        const receipt = await o.client.waitForTransactionReceipt({
          hash,
          pollingInterval: 100,
          timeout: 30_000,
        });
        mined.set(Number(receipt.blockNumber), at);
        if (mined.size > KEPT_BLOCKS) mined.delete(mined.keys().next().value!);
        counts.blocks++;
        counts.logs += o.logsPerBlock;
      } catch (err) {
        o.log(`driver: a block failed: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
      }
      next = Math.max(next + o.blockMs, Date.now());
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, next - Date.now());
      });
    }
  })();
  return {
    minedAt: (block) => mined.get(block),
    drain() {
      const out = counts;
      counts = { blocks: 0, logs: 0 };
      return out;
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
