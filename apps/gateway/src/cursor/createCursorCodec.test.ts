import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCursorCodec } from './createCursorCodec.ts';

const key = z.object({ b: z.number(), l: z.number() });

describe('cursor codec', () => {
  const codec = createCursorCodec('secret-one-0123456789');
  const binding = codec.bind('logs', { a: 1, limit: 10 });

  it('round-trips a state bound to its query', () => {
    const cursor = codec.encode(binding, { page: 3, key: { b: 10, l: 2 }, pin: 99, total: 41 });
    expect(codec.decode(binding, cursor, key)).toEqual({ page: 3, key: { b: 10, l: 2 }, pin: 99, total: 41 });
  });

  it('refuses other queries, other secrets, edits and garbage', () => {
    const cursor = codec.encode(binding, { page: 1, key: { b: 1, l: 1 } });
    expect(() => codec.decode(codec.bind('logs', { a: 2, limit: 10 }), cursor, key)).toThrow(
      'cursor does not match the query parameters it was issued for',
    );
    expect(() => createCursorCodec('secret-two-0123456789').decode(binding, cursor, key)).toThrow(
      'Invalid cursor',
    );
    const [payload, mac] = cursor.split('.') as [string, string];
    expect(() => codec.decode(binding, `${payload}x.${mac}`, key)).toThrow('Invalid cursor');
    expect(() => codec.decode(binding, 'garbage', key)).toThrow('Invalid cursor');
    expect(() => codec.decode(binding, `${cursor}.extra`, key)).toThrow('Invalid cursor');
  });
});
