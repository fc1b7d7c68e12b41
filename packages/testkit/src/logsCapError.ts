import type { LogsCap } from './rpcFaults.ts';

export interface JsonRpcError {
  code: number;
  message: string;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** The block-range cap's error for eth_getLogs over [from, to], or null when the range is allowed. */
export function blockRangeCapError(cap: LogsCap, from: number, to: number): JsonRpcError | null {
  const maxBlocks = cap.maxBlocks ?? 1_000;
  if (to - from + 1 <= maxBlocks) return null;
  switch (cap.style) {
    case 'too-wide':
      return { code: -32600, message: 'block range is too wide' };
    case 'max-block-range':
      return { code: -32000, message: `Max block range is ${maxBlocks}` };
    default:
      return null;
  }
}

/**
 * The result cap's error for eth_getLogs over [from, to] that matched `blockNumbers` (one entry
 * per log), or null when the logs fit. The hint names the widest range from `from` that fits, as
 * the providers compute it (or, misleading, one that does not).
 */
export function resultCapError(
  cap: LogsCap,
  from: number,
  to: number,
  blockNumbers: readonly number[],
): JsonRpcError | null {
  const maxLogs = cap.maxLogs ?? 10_000;
  if (blockNumbers.length <= maxLogs) return null;
  const hint = () => {
    const sorted = [...blockNumbers].sort((a, b) => a - b);
    // The block of the (maxLogs+1)th log can not be in the range; when it is `from`, one block is all we can suggest.
    const fits = Math.max(from, sorted[maxLogs]! - 1);
    const end = cap.misleadingHint ? Math.max(fits + 1, from + Math.floor((to - from) * 0.9)) : fits;
    return `[${hex(from)}, ${hex(Math.min(end, to))}]`;
  };
  switch (cap.style) {
    case 'more-than-results-hint':
      return {
        code: -32005,
        message: `query returned more than ${maxLogs} results. Try with this block range ${hint()}.`,
      };
    case 'more-than-results':
      return { code: -32005, message: `query returned more than ${maxLogs} results` };
    case 'should-work-range':
      return {
        code: -32602,
        message: `Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of ${maxLogs} logs in the response. Based on your parameters, this block range should work: ${hint()}`,
      };
    case 'exceeds-limit':
      return { code: -32005, message: `logs matched by query exceeds limit of ${maxLogs}` };
    case 'max-logs-per-response':
      return { code: -32000, message: `Max logs per response is ${maxLogs}` };
    default:
      return null;
  }
}
