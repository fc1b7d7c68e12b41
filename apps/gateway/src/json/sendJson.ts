import type { Response } from 'express';
import { stringifyJson } from './stringifyJson.ts';

/**
 * Writes a JSON body with exact bigint digits (see stringifyJson). Written straight to the
 * response (what express's res.send would send for it, without its content-type negotiation and
 * freshness checks, which a JSON API response never needs); a HEAD request gets the headers only.
 * Node writes the Content-Length of a body given whole to `end` (it measures the body for it
 * anyway): only a HEAD response, which has none, is measured here.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const json = stringifyJson(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  if (res.req.method === 'HEAD') {
    res.setHeader('content-length', Buffer.byteLength(json));
    res.end();
  } else res.end(json);
}
