import {
  databaseEnv,
  databaseTimeoutsEnv,
  envInt,
  kafkaEnv,
  kafkaTopicsEnv,
  kafkaGroupEnv,
  kafkaRetentionEnv,
  logEnv,
  opsEnv,
  parseEnv,
  rpcEnv,
} from '@tributary/config';
import { z } from 'zod';

export const envSchema = z.object({
  ...logEnv,
  ...opsEnv(9102),
  ...databaseEnv,
  // A batch's longest statement COPYs at most MAX_TRANSACTION_BYTES of events (about a second
  // at the measured backfill rate), and a begun batch waits for the one before it to commit: two minutes
  // is far beyond both (and within WATCHDOG_EXIT_MS) yet ends a statement stuck on a lock.
  ...databaseTimeoutsEnv({ statementMs: 120_000, idleInTransactionMs: 120_000 }),
  ...kafkaEnv,
  ...kafkaTopicsEnv,
  ...kafkaGroupEnv,
  KAFKA_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_RETENTION_HOURS,
  KAFKA_DEAD_LETTER_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_DEAD_LETTER_RETENTION_HOURS,
  ...rpcEnv,
  /** How often totalSupply() is compared with the indexed supply (rebasing, fee-on-transfer); 0 = never. */
  SUPPLY_CHECK_INTERVAL_MS: envInt(300_000, 0),
  KAFKA_GROUP_ID: z.string().min(1).default('tributary-projector'),
  /** Upper bound of one fetch per partition (compressed bytes). */
  KAFKA_MAX_BYTES_PER_PARTITION: envInt(16 * 1024 * 1024, 1024),
  /** Upper bound of the (uncompressed) message bytes projected in one transaction. */
  MAX_TRANSACTION_BYTES: envInt(16 * 1024 * 1024, 1024),
  /** Work waiting and no chunk committed for this long: not ready. */
  WATCHDOG_STALL_MS: envInt(60_000, 1_000),
  /** Work waiting and no chunk committed for this long: exit, for the supervisor to restart. */
  WATCHDOG_EXIT_MS: envInt(180_000, 1_000),
});
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
