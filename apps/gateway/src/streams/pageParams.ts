import { BadRequestError } from '../errors/apiErrors.ts';

/** The range of a stream list's `limit` (its presence and digits are checked by its schema). */
export function listLimit(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new BadRequestError('limit must be an integer from 1 to 100');
  return n;
}
