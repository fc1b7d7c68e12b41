import type { ChainRegistry } from '@tributary/chains';
import type { Pool } from '@tributary/db';
import { z } from 'zod';
import type { CursorCodec } from '../cursor/createCursorCodec.ts';
import type { FollowedChains } from './createFollowedChains.ts';
import type { TokenMetadataCache } from './createTokenMetadataCache.ts';

export interface DataDeps {
  pool: Pool;
  chains: ChainRegistry;
  /** A known chain that no follower of this deployment follows is a 400, not an empty page. */
  followedChains: FollowedChains;
  cursors: CursorCodec;
  tokenMetadata: TokenMetadataCache;
  /** Spacing of the wallet-transfer checkpoints behind range totals (walletRangeTotal). */
  transferCheckpointBlocks: number;
}

/** Keyset of the transfers and logs endpoints: the last (block number, log index) served. */
export const logPositionKey = z.object({ b: z.number().int().min(0), l: z.number().int().min(0) });
export type LogPositionKey = z.infer<typeof logPositionKey>;
