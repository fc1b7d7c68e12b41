import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Health } from './createHealth.ts';

/**
 * Handles GET /healthz, /readyz and /metrics; returns false for any other path so that a
 * service with its own HTTP app (the gateway) can mount the same endpoints.
 */
export function handleOpsRequest(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { health: Health; metrics: Registry },
): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (path === '/healthz') {
    send(res, 200, 'application/json', JSON.stringify({ status: 'ok' }));
    return true;
  }
  if (path === '/readyz') {
    deps.health.ready().then(
      (report) => send(res, report.status === 'ok' ? 200 : 503, 'application/json', JSON.stringify(report)),
      (err: unknown) =>
        send(res, 503, 'application/json', JSON.stringify({ status: 'fail', error: String(err) })),
    );
    return true;
  }
  if (path === '/metrics') {
    deps.metrics.metrics().then(
      (text) => send(res, 200, deps.metrics.contentType, text),
      (err: unknown) => send(res, 500, 'text/plain', String(err)),
    );
    return true;
  }
  return false;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
