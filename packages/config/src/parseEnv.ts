import { z } from 'zod';

export class EnvError extends Error {
  override readonly name = 'EnvError';
}

/**
 * Parses an environment object with a zod schema once, at start.
 * Fails fast with one readable line per bad variable.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new EnvError(`invalid environment:\n${lines.join('\n')}`);
}

/** "true" / "false" exactly; anything else is an error (never z.coerce.boolean). */
export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');

export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const envInt = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

export const envList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x.length > 0),
    );
