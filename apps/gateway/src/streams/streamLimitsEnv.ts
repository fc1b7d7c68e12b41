import { envInt } from '@tributary/config';
import { DEFAULT_STREAM_LIMITS, STREAM_LIMIT_VARIABLES, type StreamLimits } from '@tributary/stream-rules';

/** How much one account may keep: what the matchers hold in memory and evaluate for it. */
export interface AccountQuotas {
  streamsPerAccount: number;
  addressesPerStream: number;
  addressesPerAccount: number;
  /** Blocks one per-stream backfill may span. */
  backfillBlocks: number;
  /** Per-stream backfills (dry runs included) one account may have running at once. */
  backfillsPerAccount: number;
}

export const DEFAULT_ACCOUNT_QUOTAS: AccountQuotas = Object.freeze({
  streamsPerAccount: 200,
  addressesPerStream: 1_000_000,
  addressesPerAccount: 2_000_000,
  backfillBlocks: 1_000_000,
  backfillsPerAccount: 3,
});

export const QUOTA_VARIABLES: Record<keyof AccountQuotas, string> = Object.freeze({
  streamsPerAccount: 'LIMIT_STREAMS_PER_ACCOUNT',
  addressesPerStream: 'LIMIT_ADDRESSES_PER_STREAM',
  addressesPerAccount: 'LIMIT_ADDRESSES_PER_ACCOUNT',
  backfillBlocks: 'LIMIT_BACKFILL_BLOCKS',
  backfillsPerAccount: 'LIMIT_BACKFILLS_PER_ACCOUNT',
});

/** The LIMIT_* variables of the gateway (README "Limits"), each defaulting to its documented value. */
export const streamLimitsEnv = Object.fromEntries([
  ...(Object.keys(STREAM_LIMIT_VARIABLES) as (keyof StreamLimits)[]).map((k) => [
    STREAM_LIMIT_VARIABLES[k],
    envInt(DEFAULT_STREAM_LIMITS[k], 1),
  ]),
  ...(Object.keys(QUOTA_VARIABLES) as (keyof AccountQuotas)[]).map((k) => [
    QUOTA_VARIABLES[k],
    envInt(DEFAULT_ACCOUNT_QUOTAS[k], 1),
  ]),
]) as Record<string, ReturnType<typeof envInt>>;

/** The limits and quotas a parsed environment sets. */
export function limitsOf(env: Record<string, unknown>): { stream: StreamLimits; quotas: AccountQuotas } {
  const read = <K extends string>(vars: Record<K, string>) =>
    Object.fromEntries((Object.keys(vars) as K[]).map((k) => [k, Number(env[vars[k]])])) as Record<K, number>;
  return {
    stream: read(STREAM_LIMIT_VARIABLES) as StreamLimits,
    quotas: read(QUOTA_VARIABLES) as AccountQuotas,
  };
}
