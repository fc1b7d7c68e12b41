import { readFileSync } from 'node:fs';
import { z } from 'zod';

export class EnvError extends Error {
  override readonly name = 'EnvError';
}

/**
 * Parses an environment object with a zod schema once, at start.
 * Fails fast with one readable line per bad variable. Any variable `X` may instead be given as
 * `X_FILE`, the path of a file that holds its value (Docker's convention for secrets: a password
 * or a URL with one never sits in the environment of a compose file); `X` itself wins.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(withFileValues(schema, env));
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

/** The variables an env schema reads (an object at heart, under refinements and transforms). */
function schemaKeys(schema: z.ZodType): Set<string> {
  type Node = { _def?: { schema?: Node; in?: Node; innerType?: Node }; shape?: Record<string, unknown> };
  let s: Node | undefined = schema as unknown as Node;
  for (let i = 0; s && !s.shape && i < 16; i++) s = s._def?.schema ?? s._def?.in ?? s._def?.innerType;
  return new Set(Object.keys(s?.shape ?? {}));
}

/**
 * `X` read from the file `X_FILE` names, for every variable `X` the schema reads that is not set
 * (other `*_FILE` variables of the environment are none of ours and are left alone).
 */
function withFileValues(schema: z.ZodType, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of schemaKeys(schema)) {
    const path = env[`${name}_FILE`];
    if (!path || (out[name] !== undefined && out[name] !== '')) continue;
    try {
      out[name] = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new EnvError(
        `invalid environment:\n  ${name}_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  return out;
}
