/**
 * What a failure asks of a consumer:
 * - `transient`: a server or the network is away or busy (a lost connection, a timeout, a
 *   serialization failure, a lock timeout, a server shutting down): the same work will succeed
 *   later, so retry with backoff, forever;
 * - `deterministic`: the same input fails the same way every time (a constraint violation, a
 *   value the code or the database cannot take, a bug): retrying only stalls the pipeline behind
 *   it, so set the message aside with the reason and say so;
 * - `unknown`: neither is known: retried a few times, then treated as deterministic.
 *
 * Errors of ours say which they are with a `retryable` boolean (anywhere on their cause chain);
 * foreign errors are read at the boundary: PostgreSQL's SQLSTATE, Node's socket error codes,
 * kafkajs's `retriable`, ioredis's and pg-pool's connection messages.
 */
type FailureKind = 'transient' | 'deterministic' | 'unknown';

export interface Failure {
  kind: FailureKind;
  /** Why, in words: "PostgreSQL 23505 (unique_violation)", "ECONNREFUSED", ... */
  why: string;
}

// SQLSTATE classes and codes that a later try can clear. 25P03: PostgreSQL ended a session that
// waited too long inside a transaction (idle_in_transaction_session_timeout), which says nothing
// of the input, though its class is invalid transaction state.
const PG_TRANSIENT_CLASSES = new Set(['08', '53', '57', '58']);
const PG_TRANSIENT_CODES = new Set(['40001', '40P01', '55P03', '55006', '57014', '25P03']);
// Classes that fail the same way again: data exceptions, integrity constraints, invalid state,
// syntax or undefined objects, feature not supported, invalid transaction/cursor state, P0001 (raise).
const PG_DETERMINISTIC_CLASSES = new Set([
  '0A',
  '21',
  '22',
  '23',
  '24',
  '25',
  '26',
  '2B',
  '2D',
  '2F',
  '34',
  '3D',
  '3F',
  '42',
  '44',
  'P0',
]);
const PG_NAMES: Record<string, string> = {
  '23505': 'unique_violation',
  '23503': 'foreign_key_violation',
  '23502': 'not_null_violation',
  '23514': 'check_violation',
  '22003': 'numeric_value_out_of_range',
  '22P02': 'invalid_text_representation',
  '40001': 'serialization_failure',
  '40P01': 'deadlock_detected',
  '55P03': 'lock_not_available',
  '57014': 'query_canceled',
  '25P03': 'idle_in_transaction_session_timeout',
  '57P01': 'admin_shutdown',
  '42P01': 'undefined_table',
  '42703': 'undefined_column',
};
const NODE_TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const CONNECTION_MESSAGE =
  /connection terminated|connection is closed|not queryable|timeout exceeded when trying to connect|stream isn't writeable|socket hang up|the database system is (starting up|shutting down)|terminating connection|max retries per request|reached the max retries|getaddrinfo|connect ECONNREFUSED|read ECONNRESET|write EPIPE|broker not connected|closed connection|connection timeout|request timed out|timed out|no leader/i;
// Programming errors: the same input throws the same way again.
const DETERMINISTIC_ERRORS = new Set([
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'ZodError',
]);

/**
 * How many times in all a failure of unknown cause is tried before it is taken as permanent: by
 * every consumer that retries (retryUntilDone, the projector's triage, the sender's own failures).
 */
export const UNKNOWN_ATTEMPTS = 5;

export function classifyFailure(err: unknown): Failure {
  let unknown: Failure | undefined;
  let e: unknown = err;
  for (let depth = 0; e !== null && e !== undefined && depth < 8; depth++) {
    const found = classifyOne(e);
    if (found.kind !== 'unknown') return found;
    unknown ??= found;
    e = (e as { cause?: unknown }).cause;
  }
  return unknown ?? { kind: 'unknown', why: String(err) };
}

function classifyOne(e: unknown): Failure {
  if (typeof e !== 'object') return { kind: 'unknown', why: String(e) };
  const err = e as {
    retryable?: unknown;
    retriable?: unknown;
    code?: unknown;
    name?: unknown;
    message?: unknown;
  };
  const message = typeof err.message === 'string' ? err.message : String(e);
  const name = typeof err.name === 'string' ? err.name : 'Error';
  if (typeof err.retryable === 'boolean')
    return { kind: err.retryable ? 'transient' : 'deterministic', why: `${name}: ${message}` };
  const code = typeof err.code === 'string' ? err.code : undefined;
  if (code && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('E')) {
    const why = `PostgreSQL ${code}${PG_NAMES[code] ? ` (${PG_NAMES[code]})` : ''}: ${message}`;
    const cls = code.slice(0, 2);
    if (PG_TRANSIENT_CODES.has(code) || PG_TRANSIENT_CLASSES.has(cls)) return { kind: 'transient', why };
    if (PG_DETERMINISTIC_CLASSES.has(cls)) return { kind: 'deterministic', why };
    return { kind: 'unknown', why };
  }
  if (code && NODE_TRANSIENT.has(code)) return { kind: 'transient', why: `${code}: ${message}` };
  // kafkajs marks each of its errors.
  if (typeof err.retriable === 'boolean' && name.startsWith('KafkaJS'))
    return { kind: err.retriable ? 'transient' : 'unknown', why: `${name}: ${message}` };
  if (CONNECTION_MESSAGE.test(message)) return { kind: 'transient', why: `${name}: ${message}` };
  if (DETERMINISTIC_ERRORS.has(name)) return { kind: 'deterministic', why: `${name}: ${message}` };
  return { kind: 'unknown', why: `${name}: ${message}` };
}

/**
 * Work that failed for good: deterministic, or of unknown cause and still failing after the
 * tries allowed. The consumer sets its message aside (the dead letters) and says so.
 */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';
  readonly retryable = false;
  constructor(
    readonly failure: Failure,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(
      failure.kind === 'deterministic'
        ? `failed for good: ${failure.why}`
        : `failed ${attempts} times, cause unknown: ${failure.why}`,
      { cause },
    );
  }
}
