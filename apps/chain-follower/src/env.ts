import {
  chainsEnv,
  databaseEnv,
  databaseTimeoutsEnv,
  envBoolean,
  envInt,
  kafkaEnv,
  kafkaTopicsEnv,
  kafkaRetentionEnv,
  logEnv,
  opsEnv,
  parseEnv,
  rpcEnv,
} from '@tributary/config';
import { z } from 'zod';

export const envSchema = z.object({
  ...logEnv,
  ...opsEnv(9101),
  ...databaseEnv,
  // Its statements are small writes of blocks and of the checkpoint.
  ...databaseTimeoutsEnv({ statementMs: 60_000, idleInTransactionMs: 60_000 }),
  ...kafkaEnv,
  ...kafkaTopicsEnv,
  KAFKA_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_RETENTION_HOURS,
  ...rpcEnv,
  /** Several URLs of one chain, in order of preference (failover); RPC_URL alone when absent. */
  RPC_URLS: z
    .string()
    .optional()
    .transform((s, ctx) => {
      const urls = (s ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      for (const url of urls) {
        if (!z.string().url().safeParse(url).success)
          ctx.addIssue({ code: 'custom', message: `not a URL: ${url}` });
      }
      return urls;
    }),
  /** Calls per second per URL that the provider allows (0: no limit). */
  RPC_REQUESTS_PER_SECOND: envInt(0, 0),
  ...chainsEnv,
  /** newHeads over WebSocket; polling when absent. */
  WS_URL: z.string().url().optional(),
  /** Head polling without WS_URL; default: half the chain's block time, within 250..1000 ms (chainSettings). */
  POLL_INTERVAL_MS: z.coerce.number().int().min(10).optional(),
  START_BLOCK: envInt(0, 0),
  /** Overrides the chain's confirmation depth (packages/chains). */
  CONFIRMATIONS: z.coerce.number().int().min(0).optional(),
  FETCH_ACCOUNT_KINDS: envBoolean(true),
  RANGE_BLOCKS: envInt(500, 1),
  MAX_RANGE_BLOCKS: envInt(5_000, 1),
  /** Logs per eth_getLogs call the adaptive range aims at. */
  RANGE_TARGET_LOGS: envInt(5_000, 1),
  RPC_CONCURRENCY: envInt(4, 1),
  RPC_TIMEOUT_MS: envInt(20_000, 100),
  /** Calls in one JSON-RPC batch request (providers cap it, some at 10 or 50). */
  RPC_BATCH_SIZE: envInt(100, 1),
  /** Tries of one call over timeouts, dropped connections and 5xx (across the URLs) before it fails. */
  RPC_ATTEMPTS: envInt(5, 1),
  /** How long a failing URL is passed over first (it doubles while the URL keeps failing, up to 10 min). */
  RPC_DEMOTE_MS: envInt(30_000, 100),
  MAX_BATCH_BLOCKS: envInt(2_000, 1),
  HEAD_BATCH_BLOCKS: envInt(50, 1),
  REORG_WINDOW: z.coerce.number().int().min(1).optional(),
  PROGRESS_INTERVAL_MS: envInt(5_000, 100),
  /** While following is halted (another chain, a reorg deeper than the window) or fails for good: how often it looks again. */
  HALT_RECHECK_MS: envInt(30_000, 100),
  KAFKA_COMPRESSION: z.enum(['none', 'gzip']).default('gzip'),
  /** Upper bound of one produce request (a backfill batch is sent in requests of at most this). */
  KAFKA_MAX_REQUEST_BYTES: envInt(4 * 1024 * 1024, 1024),
  KAFKA_TOPIC_PARTITIONS: envInt(1, 1),
});
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}

/** What createRpc takes from the environment, beside its URLs (tests take the deployment's defaults from it). */
export function rpcSettingsOf(env: Env) {
  return {
    timeoutMs: env.RPC_TIMEOUT_MS,
    requestsPerSecond: env.RPC_REQUESTS_PER_SECOND,
    batchSize: env.RPC_BATCH_SIZE,
    attempts: env.RPC_ATTEMPTS,
    demoteMs: env.RPC_DEMOTE_MS,
  };
}
