import type { Chain } from '@tributary/chains';
import type { Pool } from '@tributary/db';
import { listFollowedChainIds } from '@tributary/db/chain';
import type { Logger } from 'pino';
import { BadRequestError } from '../errors/apiErrors.ts';

export interface FollowedChains {
  /** Throws BadRequestError (400) naming the chain when no follower of this deployment follows it. */
  assertFollowed(chain: Chain): Promise<void>;
  /** Those of `chainIds` that no follower of this deployment follows. */
  unfollowed(chainIds: readonly number[]): Promise<number[]>;
}

/** "0x1 (eth)": how answers name a chain. */
function describeChain(chain: Chain): string {
  return `${chain.hex} (${chain.names.join(', ')})`;
}

/**
 * Which chains the deployment follows, read from follower_checkpoints: a follower writes its
 * checkpoint with the first blocks it publishes, so the table is what the deployment actually has
 * data of, with nothing to keep in step by hand (a new follower shows within `cacheMs`, with no
 * gateway restart). The set is kept `cacheMs` (0: read on every request); one read at a time.
 * When a read fails, the last set read is used (and the failure logged); with none, the request fails.
 */
export function createFollowedChains(opts: {
  pool: Pool;
  cacheMs: number;
  logger: Logger;
  now?: () => number;
}): FollowedChains {
  const now = opts.now ?? Date.now;
  let cached: { ids: ReadonlySet<number>; readAt: number } | undefined;
  let reading: Promise<ReadonlySet<number>> | undefined;

  async function read(): Promise<ReadonlySet<number>> {
    try {
      const ids = new Set(await listFollowedChainIds(opts.pool));
      cached = { ids, readAt: now() };
      return ids;
    } catch (err) {
      if (!cached) throw err;
      opts.logger.warn({ err }, 'reading the followed chains failed: using the last set read');
      return cached.ids;
    }
  }

  async function followedIds(): Promise<ReadonlySet<number>> {
    if (cached && opts.cacheMs > 0 && now() - cached.readAt < opts.cacheMs) return cached.ids;
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  return {
    async assertFollowed(chain) {
      if ((await followedIds()).has(chain.id)) return;
      throw new BadRequestError(`chain ${describeChain(chain)} is not followed by this deployment`);
    },
    async unfollowed(chainIds) {
      const ids = await followedIds();
      return chainIds.filter((id) => !ids.has(id));
    },
  };
}
