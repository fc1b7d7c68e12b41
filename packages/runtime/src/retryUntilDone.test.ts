import { describe, expect, it } from 'vitest';
import { createLogger } from './createLogger.ts';
import { createOutageLog } from './createOutageLog.ts';
import { PermanentFailure } from './classifyFailure.ts';
import { retryUntilDone } from './retryUntilDone.ts';

const outage = () => createOutageLog(createLogger('test', 'silent'), 'db');

describe('retryUntilDone', () => {
  it('tries again until the work succeeds, waiting in between', async () => {
    let calls = 0;
    let waits = 0;
    const log = outage();
    const result = await retryUntilDone(
      async () => {
        calls++;
        if (calls < 3) throw new Error('ECONNREFUSED');
        return 'done';
      },
      { outage: log, maxDelayMs: 5, onWait: async () => void waits++ },
    );
    expect([result, calls, waits, log.down()]).toEqual(['done', 3, 2, false]);
  });

  it('gives the last error up when the signal aborts, leaving the work undone', async () => {
    const controller = new AbortController();
    let calls = 0;
    const run = retryUntilDone(
      async () => {
        calls++;
        if (calls === 2) controller.abort();
        throw new Error(`failure ${calls}`);
      },
      { outage: outage(), signal: controller.signal, maxDelayMs: 5 },
    );
    await expect(run).rejects.toThrow('failure 2');
  });

  it('does not retry a deterministic failure: it throws a PermanentFailure at once, not logged as an outage', async () => {
    let calls = 0;
    const log = outage();
    const run = retryUntilDone(
      async () => {
        calls++;
        throw Object.assign(new Error('violates check constraint'), { code: '23514' });
      },
      { outage: log, maxDelayMs: 5 },
    );
    await expect(run).rejects.toBeInstanceOf(PermanentFailure);
    await expect(run).rejects.toThrow(
      'failed for good: PostgreSQL 23514 (check_violation): violates check constraint',
    );
    expect([calls, log.down()]).toEqual([1, false]);
  });

  it('tries a failure of unknown cause a few times, then gives it up as permanent', async () => {
    let calls = 0;
    const seen: number[] = [];
    const run = retryUntilDone(
      async () => {
        calls++;
        throw new Error('something odd');
      },
      { outage: outage(), maxDelayMs: 5, unknownAttempts: 3, onUnknown: (_f, attempt) => seen.push(attempt) },
    );
    await expect(run).rejects.toThrow('failed 3 times, cause unknown: Error: something odd');
    expect([calls, seen]).toEqual([3, [1, 2]]);
  });

  it('retries every failure when not classifying (start-up steps waiting for their servers)', async () => {
    let calls = 0;
    const result = await retryUntilDone(
      async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('relation "streams" does not exist'), { code: '42P01' });
        return 'up';
      },
      { outage: outage(), maxDelayMs: 5, classify: false },
    );
    expect([result, calls]).toEqual(['up', 3]);
  });
});
