/**
 * The wait before attempt `attempt + 1` after a failure: doubling from 200 ms up to `maxMs`, with
 * jitter (between half and all of it) so that replicas restarted together do not retry in step.
 */
export function retryDelayMs(attempt: number, maxMs = 30_000, random: () => number = Math.random): number {
  const full = Math.min(maxMs, 200 * 2 ** Math.min(attempt, 20));
  return Math.round(full / 2 + (random() * full) / 2);
}
