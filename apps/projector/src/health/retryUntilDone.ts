import { retryDelayMs } from '../consume/retryDelayMs.ts';
import type { Outage } from './createOutage.ts';

/**
 * Runs `attempt` until it succeeds, waiting with backoff between failures, which `outage` logs
 * once; gives up (rethrows the last failure) only when `signal` aborts (shutdown).
 */
export async function retryUntilDone<T>(
  outage: Outage,
  signal: AbortSignal,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      const result = await attempt();
      outage.recovered();
      return result;
    } catch (err) {
      if (signal.aborted) throw err;
      outage.failed(err);
      await new Promise((r) => setTimeout(r, retryDelayMs(n)));
    }
  }
}
