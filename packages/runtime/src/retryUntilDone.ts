import type { OutageLog } from './createOutageLog.ts';
import { retryDelayMs } from './retryDelayMs.ts';
import { sleep } from './sleep.ts';

/**
 * Runs `work` until it succeeds: a consumer that cannot make progress waits and tries again
 * (200 ms doubling to `maxDelayMs`, jittered: retryDelayMs), it never skips. Failures go to the outage log (one line per
 * outage). `onWait` runs between tries (a Kafka heartbeat, so the group keeps the member). When
 * `signal` aborts (shutdown), the last error is thrown instead: the work stays undone and
 * uncommitted, for the next run.
 */
export async function retryUntilDone<T>(
  work: () => Promise<T>,
  opts: { outage: OutageLog; signal?: AbortSignal; maxDelayMs?: number; onWait?: () => Promise<void> },
): Promise<T> {
  const maxDelayMs = opts.maxDelayMs ?? 5_000;
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await work();
      opts.outage.ok();
      return result;
    } catch (err) {
      opts.outage.failed(err);
      if (opts.signal?.aborted) throw err;
      await sleep(retryDelayMs(attempt, maxDelayMs), opts.signal);
      if (opts.signal?.aborted) throw err;
      await opts.onWait?.().catch(() => undefined);
    }
  }
}
