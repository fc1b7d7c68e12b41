import { type Failure, PermanentFailure, UNKNOWN_ATTEMPTS, classifyFailure } from './classifyFailure.ts';
import type { OutageLog } from './createOutageLog.ts';
import { retryDelayMs } from './retryDelayMs.ts';
import { sleep } from './sleep.ts';

/** The longest wait between two tries (tests shorten it). */
const MAX_DELAY_MS = 5_000;

/**
 * Runs `work` until it succeeds, as long as its failures are transient (classifyFailure): a
 * consumer whose server is away waits and tries again (200 ms doubling to MAX_DELAY_MS, jittered),
 * it never skips; such failures go to the outage log (one line per outage). A deterministic
 * failure is not retried: it throws a PermanentFailure at once, for the consumer to set its
 * message aside and say so. A failure of unknown cause is tried `unknownAttempts` times (UNKNOWN_ATTEMPTS) in all
 * before it is taken as permanent. `onWait` runs between tries (a Kafka heartbeat, so the group
 * keeps the member). When `signal` aborts (shutdown), the last error is thrown instead: the work
 * stays undone and uncommitted, for the next run.
 */
export async function retryUntilDone<T>(
  work: () => Promise<T>,
  opts: {
    outage: OutageLog;
    signal?: AbortSignal;
    maxDelayMs?: number;
    onWait?: () => Promise<void>;
    unknownAttempts?: number;
    /** false: every failure is retried (start-up steps, which only wait for their servers). */
    classify?: boolean;
    /** A failure of unknown cause that will be tried again (for the log). */
    onUnknown?: (failure: Failure, attempt: number, err: unknown) => void;
  },
): Promise<T> {
  const maxDelayMs = opts.maxDelayMs ?? MAX_DELAY_MS;
  const unknownAttempts = opts.unknownAttempts ?? UNKNOWN_ATTEMPTS;
  let unknowns = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await work();
      opts.outage.ok();
      return result;
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const failure =
        opts.classify === false ? ({ kind: 'transient', why: '' } as const) : classifyFailure(err);
      if (failure.kind === 'deterministic') throw new PermanentFailure(failure, attempt + 1, err);
      if (failure.kind === 'unknown') {
        unknowns++;
        if (unknowns >= unknownAttempts) throw new PermanentFailure(failure, unknowns, err);
        opts.onUnknown?.(failure, unknowns, err);
      } else {
        opts.outage.failed(err);
      }
      await sleep(retryDelayMs(attempt, maxDelayMs), opts.signal);
      if (opts.signal?.aborted) throw err;
      await opts.onWait?.().catch(() => undefined);
    }
  }
}
