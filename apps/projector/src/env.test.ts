import { readFileSync } from 'node:fs';
import { envDocProblems } from '@tributary/config';
import { describe, expect, it } from 'vitest';
import { envSchema } from './env.ts';

describe('the environment projector reads', () => {
  it('is the README configuration table: every variable with its default, and nothing it does not read', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(envDocProblems({ names: ['projector'], schema: envSchema, readme })).toEqual([]);
  });
});
