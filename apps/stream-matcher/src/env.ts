import { logEnv, opsEnv, parseEnv } from '@tributary/config';
import { z } from 'zod';

export const envSchema = z.object({ ...logEnv, ...opsEnv(9103) });
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
