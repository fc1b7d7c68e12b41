export interface AdaptiveRange {
  /** Blocks per eth_getLogs request right now. */
  size(): number;
  succeeded(blocks: number, logs: number, ms: number): void;
  /** Halves the range; false when it is already one block (the error is not about size). */
  shrink(): boolean;
  /** At most `blocks` from now on, until calls are small and fast again (a provider's suggested range). */
  cap(blocks: number): void;
  /** Never more than `blocks` (a provider's fixed block-range limit). */
  limit(blocks: number): void;
}

/** A call this quick (and small) lets the range grow; four times this long shrinks it. */
const FAST_CALL_MS = 1_500;

/**
 * eth_getLogs range sizing: providers cap results per call ("query returned more than 10000
 * results", timeouts), so the range halves on such errors and grows again while calls are fast
 * and small.
 */
export function createAdaptiveRange(opts: {
  initial: number;
  max: number;
  /** Logs per call it aims at (RANGE_TARGET_LOGS). */
  targetLogs: number;
}): AdaptiveRange {
  let max = opts.max;
  let size = Math.max(1, Math.min(opts.initial, max));
  const targetLogs = opts.targetLogs;
  return {
    size: () => size,
    succeeded(blocks, logs, ms) {
      if (blocks < size) return; // a short tail range says nothing about speed
      if (logs > targetLogs * 2) {
        // Dense blocks: go straight to the size that yields about targetLogs, not by small steps.
        size = Math.max(1, Math.min(Math.floor(size * 0.7), Math.floor((size * targetLogs) / logs)));
      } else if (ms > FAST_CALL_MS * 4) size = Math.max(1, Math.floor(size * 0.7));
      else if (ms < FAST_CALL_MS && logs < targetLogs) {
        const towardTarget = logs > 0 ? Math.floor((size * targetLogs) / logs) : size * 2;
        size = Math.min(max, Math.max(size + 1, Math.min(Math.ceil(size * 1.5), towardTarget)));
      }
    },
    shrink() {
      if (size <= 1) return false;
      size = Math.max(1, Math.floor(size / 2));
      return true;
    },
    cap(blocks) {
      size = Math.max(1, Math.min(size, blocks));
    },
    limit(blocks) {
      max = Math.max(1, Math.min(max, blocks));
      size = Math.min(size, max);
    },
  };
}
