import { z } from 'zod';

// Building blocks of the HTTP query and path parameters. Each check carries the message the
// gateway answers with (400 `{"message"}`), so that the schema that validates a request is also
// the one its OpenAPI document is generated from.

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A query parameter given once: a repeated one (an array from the query parser) is refused. */
export function singleParam(name: string) {
  return z.string({ error: `${name} must be given once, as a single value` });
}

/** A 0x-prefixed 20-byte hex address, any case (lower-cased by the handler). */
export function addressParam(description: string) {
  return z
    .string({ error: 'Invalid address provided' })
    .regex(ADDRESS, { error: 'Invalid address provided' })
    .meta({ description, example: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' });
}

/** `chain` by name or hex id (resolved against the chain table by the handler); default eth. */
export const chainParam = singleParam('chain').meta({
  description:
    'Chain by name or hex id (eth, 0x1, polygon, ...); eth when absent. A known chain that this deployment does not follow answers 400',
  example: 'eth',
});

/** Page size of the data interface: 1 to 100, default 100 (the range is checked by the handler). */
export const dataLimitParam = singleParam('limit')
  .regex(/^\s*\d{1,6}\s*$/, { error: 'limit must be an integer between 1 and 100' })
  .meta({ description: 'Page size, 1 to 100 (default 100)', example: '100' });

export const orderParam = singleParam('order')
  .regex(/^(asc|desc)$/i, { error: 'order must be ASC or DESC' })
  .meta({ description: 'ASC or DESC, any case (default DESC)', example: 'DESC' });

export function blockParam(name: string, description: string) {
  return singleParam(name)
    .regex(/^\s*\d{1,16}\s*$/, { error: `${name} must be a non-negative integer block number` })
    .meta({ description, example: '17000000' });
}

export function dateParam(name: string, description: string) {
  return singleParam(name).meta({
    description: `${description}: ISO 8601, RFC 2822 or Unix seconds, from 0001-01-01 to 9999-12-31`,
    example: '2024-01-01T00:00:00Z',
  });
}

export const cursorParam = singleParam('cursor').meta({
  description: 'The cursor of the previous page (opaque, signed, bound to the other parameters)',
});
