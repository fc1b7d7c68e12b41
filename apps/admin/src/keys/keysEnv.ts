import { databaseEnv, parseEnv } from '@tributary/config';
import { z } from 'zod';

/** The keys command needs only the database. */
const keysEnvSchema = z.object({ DATABASE_URL: databaseEnv.DATABASE_URL });
export type KeysEnv = z.infer<typeof keysEnvSchema>;

export function loadKeysEnv(source: NodeJS.ProcessEnv = process.env): KeysEnv {
  return parseEnv(keysEnvSchema, source);
}
