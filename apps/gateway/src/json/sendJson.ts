import type { Response } from 'express';
import { stringifyJson } from './stringifyJson.ts';

/** Writes a JSON body with exact bigint digits (see stringifyJson). */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(stringifyJson(body));
}
