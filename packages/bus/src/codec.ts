import { type BlockEvent, blockEvent } from '@tributary/schema';
import type { z } from 'zod';

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

export interface Codec<T> {
  encode(value: T): Buffer;
  decode(bytes: Buffer | null): T;
}

/** JSON on the wire, validated by the shared zod schema on both sides. */
export function jsonCodec<S extends z.ZodType>(schema: S): Codec<z.infer<S>> {
  return {
    encode(value) {
      return Buffer.from(JSON.stringify(schema.parse(value)));
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

export const blockEventCodec: Codec<BlockEvent> = jsonCodec(blockEvent);
