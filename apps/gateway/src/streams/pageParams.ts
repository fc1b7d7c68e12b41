import type { Request } from 'express';
import { BadRequestError } from '../errors/apiErrors.ts';

/** `limit` is required on every stream list, 1..100. */
export function requiredLimit(req: Request): number {
  const raw = req.query['limit'];
  if (raw === undefined || raw === '') throw new BadRequestError('limit is required');
  const n = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new BadRequestError('limit must be an integer from 1 to 100');
  return n;
}

export function optionalString(req: Request, name: string): string | undefined {
  const raw = req.query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw new BadRequestError(`${name} must be a single string`);
  return raw;
}
