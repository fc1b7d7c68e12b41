import type { z } from 'zod';
import { BadRequestError } from '../errors/apiErrors.ts';
import { type Query, list } from './queryParams.ts';

function isArraySchema(schema: z.ZodType): boolean {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType };
  if (def.type === 'optional' && def.innerType) return isArraySchema(def.innerType);
  return def.type === 'array';
}

/**
 * Reads a query through its schema (packages/schema): only the parameters the schema names, an
 * empty one as absent, an array one in any form clients send (see `list`). The first problem, in
 * the schema's key order, is the 400's message. The OpenAPI document is built from the same schema.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: Query): z.output<S> {
  const input: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const value = query[name];
    if (value === undefined || value === '') continue;
    input[name] = isArraySchema(field) ? list(query, name) : value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new BadRequestError(parsed.error.issues[0]?.message ?? 'Invalid query');
  return parsed.data;
}

/** Path parameters through their schema; a problem is a 400 with the schema's message. */
export function parsePathParams<S extends z.ZodObject>(
  schema: S,
  params: Record<string, unknown>,
): z.output<S> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new BadRequestError(parsed.error.issues[0]?.message ?? 'Invalid path');
  return parsed.data;
}
