import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { sendJson } from '../json/sendJson.ts';
import {
  ApiError,
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  STATUS_BY_KIND,
} from './apiErrors.ts';

/** Errors raised by express's body parser carry `type` and `status`. */
interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as BodyParserError).type === 'string' &&
    typeof (err as BodyParserError).status === 'number'
  );
}

/** Codes of zlib's errors: `Z_DATA_ERROR`, ... for gzip and deflate, `ERR__ERROR_...` for br. */
const ZLIB_CODE = /^(Z_|ERR__|ERR_BROTLI)/;

/**
 * body-parser passes a failed decompression (a body that is not what its content-encoding says it
 * is: gzip, deflate or br) on as zlib's own error, tagged status 400, without a `type`.
 */
function isBodyDecompressionError(err: unknown): boolean {
  const e = err as { status?: unknown; code?: unknown } | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    e.status === 400 &&
    typeof e.code === 'string' &&
    ZLIB_CODE.test(e.code)
  );
}

/**
 * express's router decodes every path parameter with decodeURIComponent while it matches routes; a
 * malformed escape (`%ZZ`, a lone `%`, escapes that are not UTF-8) throws a URIError, which the
 * router tags with status 400 and passes on as the request's error, for every route with a parameter.
 */
function isPathDecodeError(err: unknown): err is URIError {
  return err instanceof URIError && (err as URIError & { status?: unknown }).status === 400;
}

/** Foreign errors that are the caller's fault become ApiErrors; anything else stays unknown (500). */
function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (isPathDecodeError(err))
    return new BadRequestError('Malformed percent-encoding in the request path', { cause: err });
  if (isBodyDecompressionError(err))
    return new BadRequestError('Request body does not match its content-encoding', { cause: err });
  if (isBodyParserError(err)) {
    switch (err.type) {
      case 'entity.parse.failed':
        return new BadRequestError('Malformed JSON body', { cause: err });
      case 'entity.too.large':
        return new PayloadTooLargeError('Request body too large', { cause: err });
      case 'encoding.unsupported':
      case 'charset.unsupported':
      case 'request.aborted':
      case 'request.size.invalid':
      case 'entity.verify.failed':
        return new BadRequestError('Unreadable request body', { cause: err });
    }
  }
  return undefined;
}

/** The one place where errors become statuses and bodies. Never a stack trace, never HTML. */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const requestId = res.locals.requestId as string | undefined;
    if (res.headersSent) {
      logger.error({ err, requestId }, 'error after the response started');
      res.destroy();
      return;
    }
    const apiError = toApiError(err);
    if (apiError) {
      if (apiError instanceof RateLimitedError)
        res.setHeader('retry-after', String(apiError.retryAfterSeconds));
      const body: Record<string, unknown> = { message: apiError.message };
      if (apiError.details !== undefined) body['details'] = apiError.details;
      sendJson(res, STATUS_BY_KIND[apiError.kind], body);
      return;
    }
    logger.error({ err, requestId, method: req.method, path: req.path }, 'request failed');
    sendJson(res, 500, { message: 'Internal server error', requestId });
  };
}

/** Last route: anything unmatched is a JSON 404. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`Route not found: ${req.method} ${req.originalUrl.split('?')[0]}`));
};
