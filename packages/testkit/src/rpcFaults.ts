/**
 * How the providers in front of real nodes cap eth_getLogs, by the error each one answers:
 * - result caps (`maxLogs`): `more-than-results-hint` (-32005 "query returned more than N results.
 *   Try with this block range [0x.., 0x..]."), `more-than-results` (the same without the hint),
 *   `should-work-range` (-32602 "... this block range should work: [0x.., 0x..]"),
 *   `exceeds-limit` (-32005 "logs matched by query exceeds limit of N"),
 *   `max-logs-per-response` (-32000 "Max logs per response is N");
 * - block-range caps (`maxBlocks`): `too-wide` (-32600 "block range is too wide", no number),
 *   `max-block-range` (-32000 "Max block range is N").
 */
export type LogsCapStyle =
  | 'more-than-results-hint'
  | 'more-than-results'
  | 'should-work-range'
  | 'exceeds-limit'
  | 'max-logs-per-response'
  | 'too-wide'
  | 'max-block-range';

export interface LogsCap {
  style: LogsCapStyle;
  /** Results per call above which the call fails (result-cap styles; default 10,000). */
  maxLogs?: number;
  /** Blocks per call above which the call fails (block-range styles; default 1,000). */
  maxBlocks?: number;
  /** The hinted range is wider than what would work: a client that trusts it blindly loops. */
  misleadingHint?: boolean;
}

/** Selects requests: those whose calls include one of these methods (a trailing `*` is a prefix); all when absent. */
export interface RequestSelector {
  methods?: string[];
  /** How many more selected requests get the fault (Infinity: all). */
  count: number;
}

/** Faults of the proxy, all off when absent; replaced as a whole or in part at runtime. */
export interface RpcFaults {
  /** Delay before every HTTP request is handled. */
  latencyMs?: number;
  /** HTTP 429 with `Retry-After: retryAfterSeconds` for the next `count` HTTP requests. */
  tooManyRequests?: { count: number; retryAfterSeconds: number };
  /** JSON-RPC calls per second (a batch counts each call); above it: HTTP 429 with Retry-After. */
  requestsPerSecond?: number;
  logsCap?: LogsCap;
  /** Answered -32601 (method not found); a trailing `*` is a prefix (`debug_trace*`). */
  missingMethods?: string[];
  /** Never answered: the client's timeout must fire. */
  hang?: RequestSelector;
  /** The connection is destroyed without an answer. */
  drop?: RequestSelector;
  /**
   * A node that has not executed its newest blocks yet: eth_getLogs over a range that reaches a
   * block within `depth` of the head answers [] the first time that block is asked for.
   */
  laggingLogs?: { depth: number };
}
