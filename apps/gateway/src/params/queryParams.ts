import type { Chain, ChainRegistry } from '@tributary/chains';
import type { SortOrder } from '@tributary/db/queries';
import { BadRequestError } from '../errors/apiErrors.ts';

/** `req.query` as the gateway's query parser (qs) leaves it. */
export type Query = Record<string, unknown>;

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 100;

const MIN_DATE_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_DATE_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An array parameter in any of the forms clients send: `name[]=a&name[]=b` (the SDK's),
 * `name=a&name=b`, `name[0]=a&name[1]=b`, or a single `name=a`.
 */
export function list(query: Query, name: string): string[] {
  const v = query[name];
  if (v === undefined) return [];
  let items: unknown[];
  if (typeof v === 'string') items = [v];
  else if (Array.isArray(v)) items = v;
  else if (typeof v === 'object' && v !== null) {
    // qs turns indexes past its array limit into an object: {"0": .., "150": ..}.
    const entries = Object.entries(v);
    if (!entries.every(([k]) => /^\d+$/.test(k)))
      throw new BadRequestError(`${name} must be an array of strings`);
    items = entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, x]) => x);
  } else {
    throw new BadRequestError(`${name} must be an array of strings`);
  }
  if (!items.every((x): x is string => typeof x === 'string')) {
    throw new BadRequestError(`${name} must be an array of strings`);
  }
  return items.filter((x) => x !== '');
}

/** `chain` by name or hex id; absent means eth. */
export function parseChain(chains: ChainRegistry, value: string | undefined): Chain {
  const chain = chains.resolve(value ?? 'eth');
  if (!chain) throw new BadRequestError(`Invalid chain provided: ${value}`);
  return chain;
}

export function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,6}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new BadRequestError(`limit must be an integer between 1 and ${MAX_LIMIT}`);
  }
  return n;
}

export function parseOrder(value: string | undefined): SortOrder {
  if (value === undefined) return 'DESC';
  const v = value.toUpperCase();
  if (v !== 'ASC' && v !== 'DESC') throw new BadRequestError('order must be ASC or DESC');
  return v;
}

export function parseBlock(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new BadRequestError(`${name} must be a non-negative integer block number`);
  return n;
}

/**
 * Dates as clients send them: Unix seconds (digits only), ISO 8601 or RFC 2822 (what
 * `Date.parse` reads).
 */
export function parseDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  const ms = /^\d{1,12}$/.test(v) ? Number(v) * 1000 : Date.parse(v);
  if (!Number.isFinite(ms)) {
    throw new BadRequestError(`${name} must be a date (ISO 8601, RFC 2822 or Unix seconds)`);
  }
  // JavaScript reads dates PostgreSQL cannot hold (years before 4713 BC): keep to four-digit years.
  if (ms < MIN_DATE_MS || ms > MAX_DATE_MS) {
    throw new BadRequestError(`${name} must be a date from 0001-01-01 to 9999-12-31`);
  }
  return new Date(ms);
}
