import {
  databaseEnv,
  databaseTimeoutsEnv,
  envBoolean,
  envInt,
  extraRpcUrlsEnv,
  kafkaEnv,
  kafkaTopicsEnv,
  kafkaGroupEnv,
  kafkaRetentionEnv,
  logEnv,
  opsEnv,
  parseEnv,
  redisEnv,
  rpcEnv,
  webhookQueueEnv,
} from '@tributary/config';
import { z } from 'zod';

export const envSchema = z.object({
  ...logEnv,
  ...opsEnv(9103),
  ...databaseEnv,
  // Its longest statement loads every stream's addresses (a million in seconds).
  ...databaseTimeoutsEnv({ statementMs: 60_000, idleInTransactionMs: 60_000 }),
  ...redisEnv,
  ...kafkaEnv,
  ...kafkaTopicsEnv,
  ...kafkaGroupEnv,
  ...kafkaRetentionEnv,
  /** The node that trigger calls and native balances of chain CHAIN_ID read from. */
  ...rpcEnv,
  ...extraRpcUrlsEnv,
  /** Contract calls and balance reads in flight at once. */
  RPC_CONCURRENCY: envInt(32, 1),
  /** Consumer group of `evm.blocks.v1`: instances share the partitions. */
  MATCHER_GROUP_ID: z.string().min(1).default('stream-matcher'),
  ...webhookQueueEnv,
  /** How often the loaded streams are compared with PostgreSQL, for a change event that was lost (0: never). */
  STREAM_RECONCILE_MS: envInt(30_000, 0),
  /** Time one stream may take to evaluate one block; a stream over it is no longer evaluated (README Limits). */
  STREAM_BLOCK_BUDGET_MS: envInt(250, 1),
  /** Per-stream backfills (README "Beyond the hosted service"): whether this instance works on them. */
  BACKFILL_WORKER: envBoolean(true),
  /** Blocks per transaction and per turn (backfills take turns a chunk at a time). */
  BACKFILL_CHUNK_BLOCKS: envInt(20, 1),
  /** Blocks a second one instance evaluates for backfills that send webhooks. */
  BACKFILL_BLOCKS_PER_SECOND: envInt(100, 1),
  /** ...and for dry runs, which store nothing. */
  BACKFILL_DRY_RUN_BLOCKS_PER_SECOND: envInt(1_000, 1),
  /** A backfill with this many webhooks waiting for delivery stores no more until they drain. */
  BACKFILL_MAX_PENDING: envInt(1_000, 1),
  /** How often an idle instance looks for a backfill to work on. */
  BACKFILL_POLL_MS: envInt(1_000, 10),
  /** How long a backfill stays an instance's without news; then another instance goes on with it. */
  BACKFILL_LEASE_MS: envInt(30_000, 1_000),
  /** Blocks waiting and none evaluated for this long: not ready (the watchdog). */
  WATCHDOG_STALL_MS: envInt(60_000, 1_000),
  /** ...and for this long: the matcher exits, for its supervisor to start it afresh. */
  WATCHDOG_EXIT_MS: envInt(180_000, 1_000),
});
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
