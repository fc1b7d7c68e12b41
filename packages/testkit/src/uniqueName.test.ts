import { describe, expect, it } from 'vitest';
import { uniqueName } from './uniqueName.ts';

describe('uniqueName', () => {
  it('keeps the prefix, is lower-case, and never repeats', () => {
    const names = new Set(Array.from({ length: 1000 }, () => uniqueName('Stream-Matcher')));
    expect(names.size).toBe(1000);
    for (const name of names) expect(name).toMatch(/^stream-matcher-[0-9a-z]+-[0-9a-f]{10}$/);
    expect(uniqueName('tt', '_')).toMatch(/^tt_[0-9a-z]+_[0-9a-f]{10}$/);
  });
});
