import type { Response } from 'express';
import { stringifyJson } from './stringifyJson.ts';

/**
 * Writes a JSON body with exact bigint digits (see stringifyJson). Written straight to the
 * response (what express's res.send would send for it, without its content-type negotiation and
 * freshness checks, which a JSON API response never needs); a HEAD request gets the headers only.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const json = stringifyJson(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(json));
  if (res.req.method === 'HEAD') res.end();
  else res.end(json);
}
