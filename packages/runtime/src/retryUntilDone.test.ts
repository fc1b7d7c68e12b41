import { describe, expect, it } from 'vitest';
import { createLogger } from './createLogger.ts';
import { createOutageLog } from './createOutageLog.ts';
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
});
