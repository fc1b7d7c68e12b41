import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { stringifyJson } from '../json/stringifyJson.ts';
import {
  type ApiError,
  BadRequestError,
  HeadersTooLargeError,
  NotFoundError,
  RequestTimeoutError,
  STATUS_BY_KIND,
} from './apiErrors.ts';

/** What Node's HTTP parser refused, as the error the caller gets. */
function toApiError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HeadersTooLargeError('Request line and headers too large', { cause: err });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeoutError('Request not received in time', { cause: err });
    default:
      return new BadRequestError('Malformed HTTP request', { cause: err });
  }
}

/** Marks a socket already answered: Node reports the same parse error again for every later chunk. */
const ANSWERED = Symbol('answered');
type Socket = Duplex & { [ANSWERED]?: true; _httpMessage?: { headersSent: boolean } | null };
/** How long the client gets to read the answer before the connection is dropped. */
const LINGER_MS = 2_000;

/**
 * The HTTP server's `clientError` listener. Requests that Node's parser refuses before express sees
 * them (a request line or headers past the size limit, a malformed request, a content length that
 * disagrees with the body) would otherwise get Node's bare status line with no body; they get the
 * gateway's JSON error body instead, and the connection is closed as Node does.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (socket[ANSWERED]) return;
  // As Node does: answer unless a response on this (keep-alive) connection has already started.
  if (!socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  writeError(socket, toApiError(err));
}

/**
 * The HTTP server's `connect` listener: Node hands a CONNECT request to it rather than to express,
 * and closes the connection without a word when nobody listens. No route serves CONNECT.
 */
export function answerConnect(req: IncomingMessage, socket: Socket): void {
  const path = (req.url ?? '').split('?')[0];
  writeError(socket, new NotFoundError(`Route not found: ${req.method} ${path}`));
}

/** Writes a whole JSON error response on a socket that no ServerResponse owns, then closes it. */
function writeError(socket: Socket, apiError: ApiError): void {
  socket[ANSWERED] = true;
  const status = STATUS_BY_KIND[apiError.kind];
  const body = stringifyJson({ message: apiError.message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // Closing while the client still sends (the rest of its oversized headers) would reset the
  // connection and lose the answer on its side: the client closes first, or the linger runs out.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
