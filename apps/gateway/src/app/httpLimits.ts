/** What the public HTTP server allows a client (see the README's "Exposing the gateway"). */
export interface HttpLimits {
  /** Time to receive the request line and headers; then a 408 and the connection closed. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body; then a 408. 0: no limit. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open after a response. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; past it a new connection is closed at once. 0: no cap. */
  maxConnections: number;
}

/**
 * Node's own defaults (60 s for headers, 5 min per request, no connection cap) let slow clients
 * hold connections for minutes. A real client sends its headers in one packet: 10 s tolerates a
 * slow link. 30 s takes the largest body (BODY_LIMIT_BYTES, 8 MiB) at about 300 KB/s. 5 s of
 * keep-alive (Node's default) frees idle connections soon. 1,000 connections is far beyond what one
 * process serving about a thousand requests per second at millisecond latencies needs, with room
 * for a load balancer's pools, and bounds the sockets and memory a flood can take.
 */
export const HTTP_LIMIT_DEFAULTS: Readonly<HttpLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};
