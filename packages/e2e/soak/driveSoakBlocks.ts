import { bulkTransferEmitterAbi } from '@tributary/contracts';
import { type Account, encodeFunctionData } from 'viem';
import type { ChainDriver } from '../kinds/createChainDriver.ts';

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
 * transaction from `from`, mined by the driver), always to the same recipients, so that
 * per-address streams match every block. A late block is not made up for: the pace is kept from
 * then on.
 */
export function driveSoakBlocks(o: {
  driver: ChainDriver;
  from: Account;
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
        const data = encodeFunctionData({
          abi: bulkTransferEmitterAbi,
          functionName: 'emitTransfers',
          args: [o.firstRecipient as `0x${string}`, BigInt(o.logsPerBlock), BigInt(i + 1)],
        });
        const at = Date.now();
        const block = await o.driver.mineBlock(async (send) => {
          // Gas for the logs (~2.2k each) and the loop, with room to spare.
          await send({
            from: o.from,
            to: o.emitter as `0x${string}`,
            data,
            gas: 100_000n + 10_000n * BigInt(o.logsPerBlock),
          });
        });
        mined.set(block.number, at);
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
