import type { Health } from '@tributary/runtime';
import type { RequestHandler } from 'express';
import { sendJson } from '../json/sendJson.ts';

/** How long one readiness answer serves every caller: anyone may ask, and each look pings PostgreSQL and Redis. */
const READY_FOR_MS = 1_000;

/**
 * GET /healthz and /readyz on the public port, without a key, for load balancers: whether the
 * process answers, and whether it is ready (200 `{"status":"ok"}` or 503 `{"status":"fail"}`),
 * never why not: a dependency's error names internal addresses. The reasons are on the ops port's
 * /readyz, beside /metrics.
 */
export function createPublicHealth(health: Health, now: () => number = Date.now): RequestHandler {
  let last: { ready: Promise<boolean>; at: number } | undefined;
  const isReady = () => {
    if (last === undefined || now() - last.at >= READY_FOR_MS) {
      last = {
        ready: health.ready().then(
          (report) => report.status === 'ok',
          () => false,
        ),
        at: now(),
      };
    }
    return last.ready;
  };
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === '/healthz') {
      res.locals.route = '/healthz';
      sendJson(res, 200, { status: 'ok' });
      return;
    }
    if (req.path !== '/readyz') return next();
    res.locals.route = '/readyz';
    void isReady().then((ready) => sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'fail' }));
  };
}
