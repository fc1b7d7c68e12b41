import { readFileSync } from 'node:fs';
import { envDocProblems } from '@tributary/config';
import { describe, expect, it } from 'vitest';
import { envSchema, loadEnv } from './env.ts';

describe('the environment webhook-sender reads', () => {
  it('is the README configuration table: every variable with its default, and nothing it does not read', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(envDocProblems({ names: ['webhook-sender', 'sender'], schema: envSchema, readme })).toEqual([]);
  });

  it('keeps failed and held deliveries at least as long as delivered ones', () => {
    expect(loadEnv({})).toMatchObject({ DELIVERY_RETENTION_DAYS: 30, FAILED_DELIVERY_RETENTION_DAYS: 90 });
    expect(() => loadEnv({ DELIVERY_RETENTION_DAYS: '30', FAILED_DELIVERY_RETENTION_DAYS: '7' })).toThrow(
      'FAILED_DELIVERY_RETENTION_DAYS: must be at least DELIVERY_RETENTION_DAYS',
    );
  });
});
