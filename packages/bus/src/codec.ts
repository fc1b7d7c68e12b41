import { type BlockEvent, blockEvent } from '@tributary/schema';
import type { z } from 'zod';

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

export interface Codec<T> {
  encode(value: T): Buffer;
  /**
   * For values a producer built itself with typed code: checks the shape on a sample (arrays cut
   * to their first element) instead of every element; consumers still validate everything.
   */
  encodeOwn(value: T): Buffer;
  decode(bytes: Buffer | null): T;
}

/** JSON on the wire, validated by the shared zod schema on both sides. */
export function jsonCodec<S extends z.ZodType>(schema: S): Codec<z.infer<S>> {
  return {
    encode(value) {
      return Buffer.from(JSON.stringify(schema.parse(value)));
    },
    encodeOwn(value) {
      const sample = schema.safeParse(sampleArrays(value));
      if (!sample.success) throw new DecodeError(`message does not match schema: ${sample.error.message}`);
      return Buffer.from(JSON.stringify(value));
    },
    decode(bytes) {
      if (!bytes) throw new DecodeError('empty message');
      let json: unknown;
      try {
        json = JSON.parse(bytes.toString('utf8'));
      } catch (err) {
        throw new DecodeError('message is not JSON', { cause: err });
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw new DecodeError(`message does not match schema: ${parsed.error.message}`);
      return parsed.data;
    },
  };
}

/** A shallow copy whose top-level arrays longer than 16 keep only their first element. */
function sampleArrays(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = Array.isArray(v) && v.length > 16 ? v.slice(0, 1) : v;
  return out;
}

export const blockEventCodec: Codec<BlockEvent> = jsonCodec(blockEvent);
