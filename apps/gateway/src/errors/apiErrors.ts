/**
 * The gateway's error hierarchy. Route code throws these; `errorHandler.ts` is the one place that
 * turns them (and every foreign error) into a status and a `{"message", "details"?}` body.
 */
export type ApiErrorKind =
  | 'bad-request'
  | 'unauthorized'
  | 'not-found'
  | 'payload-too-large'
  | 'headers-too-large'
  | 'request-timeout'
  | 'validation'
  | 'rate-limited';

export abstract class ApiError extends Error {
  abstract readonly kind: ApiErrorKind;
  readonly details: Record<string, unknown> | undefined;
  constructor(message: string, opts: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.details = opts.details;
  }
}

/** A query or path parameter, or a body, that cannot be used (400). */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
  readonly kind = 'bad-request';
}

/** Missing, unknown or revoked API key (401). */
export class UnauthorizedError extends ApiError {
  override readonly name = 'UnauthorizedError';
  readonly kind = 'unauthorized';
}

/** Unknown route, or a resource the caller's account cannot see (404). */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
  readonly kind = 'not-found';
}

export class PayloadTooLargeError extends ApiError {
  override readonly name = 'PayloadTooLargeError';
  readonly kind = 'payload-too-large';
}

/** A request line and headers past the HTTP server's limit (431; see answerClientError). */
export class HeadersTooLargeError extends ApiError {
  override readonly name = 'HeadersTooLargeError';
  readonly kind = 'headers-too-large';
}

/** A request not received whole within the HTTP server's time limit (408). */
export class RequestTimeoutError extends ApiError {
  override readonly name = 'RequestTimeoutError';
  readonly kind = 'request-timeout';
}

/** A stream body that breaks the rules (422 `{"message":"Validation Failed","details":{...}}`). */
export class ValidationError extends ApiError {
  override readonly name = 'ValidationError';
  readonly kind = 'validation';
  constructor(details: Record<string, unknown>, message = 'Validation Failed') {
    super(message, { details });
  }
}

export class RateLimitedError extends ApiError {
  override readonly name = 'RateLimitedError';
  readonly kind = 'rate-limited';
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many requests: rate limit exceeded',
  ) {
    super(message);
  }
}

export const STATUS_BY_KIND: Record<ApiErrorKind, number> = {
  'bad-request': 400,
  unauthorized: 401,
  'not-found': 404,
  'payload-too-large': 413,
  'headers-too-large': 431,
  'request-timeout': 408,
  validation: 422,
  'rate-limited': 429,
};
