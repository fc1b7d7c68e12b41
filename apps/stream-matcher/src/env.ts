import { databaseEnv, kafkaEnv, logEnv, opsEnv, parseEnv, redisEnv } from '@tributary/config';
import { z } from 'zod';

export const envSchema = z.object({
  ...logEnv,
  ...opsEnv(9103),
  ...databaseEnv,
  ...redisEnv,
  ...kafkaEnv,
  /** Consumer group of `evm.blocks.v1`: instances share the partitions. */
  MATCHER_GROUP_ID: z.string().min(1).default('stream-matcher'),
  /** BullMQ key prefix; the webhook-sender must use the same one. */
  WEBHOOK_QUEUE_PREFIX: z.string().min(1).default('tributary'),
});
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
