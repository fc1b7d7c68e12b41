import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { BadRequestError } from '../errors/apiErrors.ts';

/** What a page hands to the next one. */
interface CursorState<K> {
  /** Page number of the page this cursor fetches (first page is 0). */
  page: number;
  /** Keyset: the last row of the previous page. */
  key: K;
  /** Upper block bound pinned by the first page, so that new blocks do not shift later pages. */
  pin?: number | null;
  /** A total computed by the first page (same pinned range, so still exact). */
  total?: number;
}

const payloadSchema = z.object({
  v: z.literal(1),
  q: z.string(),
  p: z.number().int().min(1),
  k: z.unknown(),
  u: z.number().int().nullable().optional(),
  t: z.number().int().min(0).optional(),
});

export interface CursorCodec {
  /** A fingerprint of the query a cursor belongs to (endpoint and every parameter but the cursor). */
  bind(endpoint: string, params: unknown): string;
  encode<K>(binding: string, state: CursorState<K>): string;
  /** Verifies the signature and the binding, then checks the key's shape. Any failure is a 400. */
  decode<K>(binding: string, cursor: string, keySchema: z.ZodType<K>): CursorState<K>;
}

/**
 * Opaque cursors: base64url(JSON payload) "." base64url(HMAC-SHA256(secret, payload)). The
 * payload carries a fingerprint of the query, so a cursor used with other parameters is refused.
 */
export function createCursorCodec(secret: string): CursorCodec {
  const sign = (payload: string) => createHmac('sha256', secret).update(`cursor.v1.${payload}`).digest();
  const invalid = () => new BadRequestError('Invalid cursor');
  return {
    bind(endpoint, params) {
      return createHash('sha256')
        .update(JSON.stringify([endpoint, params]))
        .digest()
        .subarray(0, 16)
        .toString('base64url');
    },
    encode(binding, state) {
      const payload = Buffer.from(
        JSON.stringify({ v: 1, q: binding, p: state.page, k: state.key, u: state.pin, t: state.total }),
      ).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    decode(binding, cursor, keySchema) {
      const [payload, mac, extra] = cursor.split('.');
      if (!payload || !mac || extra !== undefined) throw invalid();
      const expected = sign(payload);
      const given = Buffer.from(mac, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let parsed: z.infer<typeof payloadSchema>;
      try {
        parsed = payloadSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
      } catch {
        throw invalid();
      }
      if (parsed.q !== binding) {
        throw new BadRequestError('cursor does not match the query parameters it was issued for');
      }
      const key = keySchema.safeParse(parsed.k);
      if (!key.success) throw invalid();
      return { page: parsed.p, key: key.data, pin: parsed.u, total: parsed.t };
    },
  };
}
