import { HttpRequestError, TimeoutError } from 'viem';

/**
 * What a failed JSON-RPC call asks of us:
 * - `rate-limited`: wait (the Retry-After the provider named, when it did) and ask again;
 * - `transient`: the endpoint or the network failed (timeout, dropped connection, 5xx): retry,
 *   another endpoint first;
 * - `unsupported`: the endpoint does not have this method: use a fallback (never for a timeout);
 * - `range`: eth_getLogs asked for too many blocks or results: ask for fewer;
 * - `other`: any other answer of the node (the caller's retry with backoff decides).
 */
export type RpcErrorKind =
  | { kind: 'rate-limited'; retryAfterMs: number | undefined }
  | { kind: 'transient'; timeout: boolean }
  | { kind: 'unsupported' }
  | { kind: 'range' }
  | { kind: 'other' };

const RATE_LIMITED = /rate limit|too many requests|exceeded .*capacity|throughput|request limit reached/i;
const UNSUPPORTED =
  /method not found|not supported|unsupported method|does not exist\/is not available|method .* is not available|not whitelisted/i;
const RANGE =
  /query returned more than|more than \d+ results|block range|range is too|range too large|exceeds limit|exceeds the limit|max logs|logs matched|response size|too many (results|logs|blocks)|max range|query timeout exceeded/i;

export function classifyRpcError(err: unknown): RpcErrorKind {
  const http = find(err, (e): e is HttpRequestError => e instanceof HttpRequestError);
  const code = rpcCode(err);
  const text = errorText(err);
  if (
    http?.status === 429 ||
    code === 429 ||
    (code === -32005 && RATE_LIMITED.test(text)) ||
    RATE_LIMITED.test(text)
  ) {
    return { kind: 'rate-limited', retryAfterMs: retryAfterMs(http?.headers?.get('retry-after')) };
  }
  if (code === -32601 || code === -32004 || UNSUPPORTED.test(text)) return { kind: 'unsupported' };
  if (RANGE.test(text)) return { kind: 'range' };
  if (find(err, (e) => e instanceof TimeoutError)) return { kind: 'transient', timeout: true };
  // No status: the connection failed or was dropped before an answer.
  if (http && (http.status === undefined || http.status >= 500 || http.status === 408)) {
    return { kind: 'transient', timeout: false };
  }
  if (
    code === -32603 ||
    (code === -32000 && /header not found|unknown block|timeout|try again/i.test(text))
  ) {
    return { kind: 'transient', timeout: false };
  }
  return { kind: 'other' };
}

/** Retry-After as seconds or an HTTP date, in ms from now. */
function retryAfterMs(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The node's words (and every cause's), for matching providers' messages. */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 8; depth++) {
    parts.push(e.message);
    const details = (e as { details?: unknown }).details;
    if (typeof details === 'string') parts.push(details);
    e = e.cause;
  }
  if (parts.length === 0) parts.push(String(err));
  return parts.join(' | ');
}

function rpcCode(err: unknown): number | undefined {
  const withCode = find(err, (e) => typeof (e as { code?: unknown }).code === 'number');
  return withCode ? (withCode as unknown as { code: number }).code : undefined;
}

function find<T extends Error>(err: unknown, test: (e: Error) => e is T): T | undefined;
function find(err: unknown, test: (e: Error) => boolean): Error | undefined;
function find(err: unknown, test: (e: Error) => boolean): Error | undefined {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 8; depth++) {
    if (test(e)) return e;
    e = e.cause;
  }
  return undefined;
}
