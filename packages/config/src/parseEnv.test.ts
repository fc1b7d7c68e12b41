import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EnvError, envBoolean, envList, parseEnv } from './parseEnv.ts';

describe('parseEnv', () => {
  const schema = z.object({ FLAG: envBoolean(false), LIST: envList('a,b') });

  it('parses exact booleans and lists with defaults', () => {
    expect(parseEnv(schema, {})).toEqual({ FLAG: false, LIST: ['a', 'b'] });
    expect(parseEnv(schema, { FLAG: 'true', LIST: ' x , y,,' })).toEqual({ FLAG: true, LIST: ['x', 'y'] });
  });

  it('refuses loose booleans with a readable message naming the variable', () => {
    expect(() => parseEnv(schema, { FLAG: '1' })).toThrow(EnvError);
    expect(() => parseEnv(schema, { FLAG: 'yes' })).toThrow(/FLAG/);
  });
});
