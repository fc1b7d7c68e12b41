import { z } from 'zod';

// Parameters and small bodies of the stream interface. A stream id that is not a uuid is a stream
// the caller cannot see: 404, like any other unknown id.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const streamId = z
  .string()
  .regex(UUID)
  .meta({ description: 'Stream id (uuid)', example: '0b0e4b1e-6f3c-4c51-9a3b-2f0a4f8f1c8e' });

export const streamPathParams = z.object({ id: streamId });
export const streamStatsPathParams = z.object({ streamId });
export const replayPathParams = z.object({
  streamId,
  id: z.string().regex(UUID).meta({ description: 'Delivery id (uuid), from the history' }),
});

/** `limit` is required on every list of the stream interface (1 to 100; the range is the handler's). */
const listLimit = z
  .string({
    error: (issue) =>
      issue.input === undefined ? 'limit is required' : 'limit must be an integer from 1 to 100',
  })
  .regex(/^[0-9]+$/, { error: 'limit must be an integer from 1 to 100' })
  .meta({ description: 'Page size, 1 to 100 (required)', example: '100' });

const listCursor = z
  .string({ error: 'cursor must be a single string' })
  .meta({ description: 'The cursor of the previous page; absent on the last page' });

export const streamListQuery = z.object({ limit: listLimit, cursor: listCursor.optional() });

export const historyQuery = z.object({
  limit: listLimit,
  cursor: listCursor.optional(),
  streamId: z
    .string({ error: 'streamId must be a single string' })
    .meta({ description: "Only this stream's deliveries (an unknown id: 404)" })
    .optional(),
  excludePayload: z
    .string({ error: 'excludePayload must be a single string' })
    .meta({ description: '"true" leaves each delivery\'s payload out' })
    .optional(),
});

export const streamStatusBody = z.object({ status: z.enum(['active', 'paused']) });

export const streamAddressBody = z.object({
  address: z.union([z.string(), z.array(z.string())]).meta({ description: 'One address or many' }),
});

/**
 * A chosen webhook secret is at least as long as a generated one: 24 random bytes are 32 base64url
 * characters. Shorter ones are refused (8 characters can be guessed offline from one signed webhook).
 */
export const WEBHOOK_SECRET_MIN_LENGTH = 32;

export const settingsBody = z.object({
  secretKey: z.string().min(WEBHOOK_SECRET_MIN_LENGTH).max(256).meta({
    description:
      'The new webhook secret (32 to 256 characters). The one it replaces keeps signing for the rotation window (SECRET_ROTATION_WINDOW_MS)',
  }),
});

/** GET /streams/evm/{id}/listen: the long poll of `pnpm listen` (beyond the hosted service). */
export const listenQuery = z.object({
  cursor: z
    .string({ error: 'cursor must be a single string' })
    .meta({
      description: 'The cursor of the previous answer; absent: start after the webhooks stored so far',
    })
    .optional(),
  limit: z
    .string({ error: 'limit must be an integer from 1 to 100' })
    .regex(/^[0-9]+$/, { error: 'limit must be an integer from 1 to 100' })
    .meta({ description: 'Most webhooks in one answer, 1 to 100 (default 20)', example: '20' })
    .optional(),
  waitMs: z
    .string({ error: 'waitMs must be an integer from 0 to 25000' })
    .regex(/^[0-9]+$/, { error: 'waitMs must be an integer from 0 to 25000' })
    .meta({
      description:
        'With a cursor: how long to wait for a webhook before answering none, 0 to 25000 (default 20000)',
      example: '0',
    })
    .optional(),
});
