import { describe, expect, it } from 'vitest';
import { stringifyJson } from './stringifyJson.ts';

describe('stringifyJson', () => {
  it('writes bigints as exact JSON integers and everything else as JSON.stringify does', () => {
    const max = 2n ** 256n - 1n;
    const value = { a: max, b: [1, 'x', null, true, 0n], c: undefined, d: { e: 'q"uote' }, f: Number.NaN };
    expect(stringifyJson(value)).toBe(`{"a":${max},"b":[1,"x",null,true,0],"d":{"e":"q\\"uote"},"f":null}`);
    const plain = { s: 'é\n', n: 1.5, arr: [{}], nested: { t: false } };
    expect(stringifyJson(plain)).toBe(JSON.stringify(plain));
    expect(stringifyJson(new Date(Date.UTC(2024, 0, 1)))).toBe('"2024-01-01T00:00:00.000Z"');
  });
});
