import { createPool } from '@tributary/db';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../testing/testDatabase.ts';
import { withSessionSettings } from './withSessionSettings.ts';

describe('withSessionSettings', () => {
  it('gives every pooled session the read settings, and lets options already in the URL win', async () => {
    const settings = async (url: string) => {
      const pool = createPool({ connectionString: url, max: 1 });
      try {
        const { rows } = await pool.query<{ jit: string; workers: string }>(
          `SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
        );
        return rows[0];
      } finally {
        await pool.end();
      }
    };
    expect(await settings(withSessionSettings(TEST_DATABASE_URL))).toEqual({ jit: 'off', workers: '0' });

    const operator = new URL(TEST_DATABASE_URL);
    operator.searchParams.set('options', '-c max_parallel_workers_per_gather=1');
    expect(await settings(withSessionSettings(operator.toString()))).toEqual({ jit: 'off', workers: '1' });
  });
});
