import { databaseEnv, kafkaEnv, parseEnv, redisEnv, webhookQueueEnv } from '@tributary/config';
import { z } from 'zod';

/** The deployment the admin command works on: the services' own variables, with their defaults. */
const adminEnvSchema = z.object({ ...databaseEnv, ...redisEnv, ...kafkaEnv, ...webhookQueueEnv });
export type AdminEnv = z.infer<typeof adminEnvSchema>;

export function loadAdminEnv(source: NodeJS.ProcessEnv = process.env): AdminEnv {
  return parseEnv(adminEnvSchema, source);
}
