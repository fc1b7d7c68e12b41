import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request id (x-request-id in and out, `res.locals.requestId`), one structured log line per
 * request, the request-duration histogram by route and status, and the 401 and 429 counts (a 429 of
 * the key's rate limit apart from one of its address's failed keys).
 */
export function createRequestContext(opts: { logger: Logger; metrics: Registry }): RequestHandler {
  const duration = new Histogram({
    name: 'tributary_gateway_http_request_duration_seconds',
    help: 'HTTP request duration by method, matched route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [opts.metrics],
  });
  const authFailures = new Counter({
    name: 'tributary_gateway_auth_failures_total',
    help: 'Requests refused with 401: a missing, unknown or revoked API key',
    registers: [opts.metrics],
  });
  const rateLimited = new Counter({
    name: 'tributary_gateway_rate_limited_total',
    help: 'Requests refused with 429: over RATE_LIMIT_PER_SECOND for their API key',
    registers: [opts.metrics],
  });
  const authThrottled = new Counter({
    name: 'tributary_gateway_auth_throttled_total',
    help: 'Requests refused with 429: over AUTH_FAILURES_PER_MINUTE unknown or revoked keys from their address',
    registers: [opts.metrics],
  });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.get('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('x-request-id', requestId);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The matched route pattern (never the raw path: addresses would explode the label set).
      const route =
        (res.locals.route as string | undefined) ??
        (req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched');
      duration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (res.statusCode === 401) authFailures.inc();
      else if (res.statusCode === 429)
        (res.locals.authThrottled === true ? authThrottled : rateLimited).inc();
      const account = res.locals.account as { id: string } | undefined;
      opts.logger.info(
        {
          requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          route,
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
          accountId: account?.id,
        },
        'request',
      );
    });
    next();
  };
}
