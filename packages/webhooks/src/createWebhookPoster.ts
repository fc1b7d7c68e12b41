import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TLSSocket } from 'node:tls';
import { checkWebhookUrl } from './checkWebhookUrl.ts';
import { AddressRefusedError, type ResolveHost, createWebhookLookup } from './createWebhookLookup.ts';
import type { RefusalReason, WebhookPolicy } from './webhookPolicy.ts';

/**
 * What one POST did. 2xx is delivered; anything else is a failed attempt with a reason.
 * `refused`: the policy refused the URL or the address it resolved to; nothing was sent.
 */
type PostResult =
  | { ok: true; statusCode: number; latencyMs: number }
  | { ok: false; statusCode: number | null; latencyMs: number; error: string; refused: RefusalReason | null };

export interface WebhookPoster {
  /** POSTs the exact bytes; the whole exchange (connect, send, answer) within `timeoutMs`. */
  post(opts: {
    url: string;
    body: string;
    headers: Record<string, string>;
    timeoutMs: number;
  }): Promise<PostResult>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** A receiver's answer is read up to this many bytes; past it the connection is closed. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const TLS_HANDSHAKE_TIMEOUT_MS = 5_000;

class PostTimeout extends Error {}
class TlsHandshakeTimeout extends Error {}

/**
 * A kept-alive connection the receiver had closed as idle while it was being reused: the request
 * failed before any answer (reset, or the write hit a closed socket). The receiver never read it
 * (a server closes only idle connections), so it goes again on another connection.
 */
class StaleConnection extends Error {}
/** Stale kept-alive connections in a row a POST moves past before it fails with the last one's error. */
const MAX_STALE_RETRIES = 3;

/** Bounds the TLS handshake of a new connection (a kept-alive one has done it). */
function boundHandshake(req: ClientRequest, timeoutMs: number) {
  req.on('socket', (socket) => {
    if (!(socket instanceof TLSSocket) || req.reusedSocket) return;
    socket.once('connect', () => {
      const timer = setTimeout(() => req.destroy(new TlsHandshakeTimeout()), timeoutMs);
      socket.once('secureConnect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
  });
}

/**
 * The one way a webhook leaves Tributary (deliveries and the gateway's test webhooks). Each
 * connection's address is checked in the socket's lookup, so it is the address connected to that
 * passes the policy; redirects are not followed; the answer is read up to 64 KiB (its status is
 * what counts), after which the connection is closed rather than drained.
 */
export function createWebhookPoster(opts: {
  policy: WebhookPolicy;
  /** How host names resolve (the system's resolver by default). */
  resolve?: ResolveHost;
  maxResponseBytes?: number;
  tlsHandshakeTimeoutMs?: number;
}): WebhookPoster {
  const maxResponseBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const handshakeMs = opts.tlsHandshakeTimeoutMs ?? TLS_HANDSHAKE_TIMEOUT_MS;
  const lookup = createWebhookLookup({
    allowPrivate: opts.policy.allowPrivate,
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
  });
  // node:http with keep-alive rather than fetch: about a fifth of the CPU per request, which is
  // what bounds a sender process's deliveries per second.
  // maxFreeSockets above a sender's concurrency: with the default (256) a dip in load closed the
  // surplus keep-alive connections, and the next burst paid for new ones.
  const keepAlive = { keepAlive: true, scheduling: 'lifo', maxFreeSockets: 2_048, lookup } as const;
  const agents = { http: new HttpAgent(keepAlive), https: new HttpsAgent(keepAlive) };

  function send(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const https = url.protocol === 'https:';
      let answered = false;
      const settle = (status: number) => {
        clearTimeout(timer);
        resolve(status);
      };
      const fail = (err: Error & { code?: string }) => {
        clearTimeout(timer);
        const stale = req.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        reject(stale ? new StaleConnection(err.code, { cause: err }) : err);
      };
      const req = (https ? httpsRequest : httpRequest)(
        url,
        {
          method: 'POST',
          agent: https ? agents.https : agents.http,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          answered = true;
          // Read (and drop) the body so the connection can be reused, up to the cap: a receiver
          // that sends more gets its connection closed.
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read <= maxResponseBytes) return;
            settle(res.statusCode ?? 0);
            res.destroy();
          });
          res.on('end', () => settle(res.statusCode ?? 0));
          res.on('error', fail);
        },
      );
      const timer = setTimeout(() => req.destroy(new PostTimeout()), timeoutMs);
      if (https) boundHandshake(req, handshakeMs);
      req.on('error', fail);
      req.end(body);
    });
  }

  async function sendPastStaleConnections(
    url: URL,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<number> {
    // Every try shares the first one's deadline: the whole exchange stays within `timeoutMs`.
    const deadline = Date.now() + timeoutMs;
    for (let stale = 0; ; stale++) {
      try {
        return await send(url, headers, body, deadline - Date.now());
      } catch (err) {
        const again = err instanceof StaleConnection && stale < MAX_STALE_RETRIES && Date.now() < deadline;
        if (!again) throw err;
      }
    }
  }

  async function post(p: Parameters<WebhookPoster['post']>[0]): Promise<PostResult> {
    const started = Date.now();
    const check = checkWebhookUrl(p.url, opts.policy);
    if (!check.ok)
      return {
        ok: false,
        statusCode: null,
        latencyMs: 0,
        error: `refused: ${check.reason}`,
        refused: check.reason,
      };
    try {
      const status = await sendPastStaleConnections(check.url, p.headers, p.body, p.timeoutMs);
      const latencyMs = Date.now() - started;
      if (status >= 200 && status < 300) return { ok: true, statusCode: status, latencyMs };
      return { ok: false, statusCode: status, latencyMs, error: `HTTP ${status}`, refused: null };
    } catch (err) {
      const latencyMs = Date.now() - started;
      if (err instanceof AddressRefusedError) {
        const refused = 'the address is not allowed';
        return { ok: false, statusCode: null, latencyMs, error: `refused: ${refused}`, refused };
      }
      const e = (err instanceof StaleConnection ? err.cause : err) as Error & { code?: string };
      const error =
        e instanceof PostTimeout
          ? `timeout after ${p.timeoutMs} ms`
          : e instanceof TlsHandshakeTimeout
            ? `TLS handshake timeout after ${handshakeMs} ms`
            : (e.code ?? e.message);
      return { ok: false, statusCode: null, latencyMs, error, refused: null };
    }
  }

  return {
    post,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
