import { z } from 'zod';

/**
 * Kafka topic `streams.changes.v1`, key = stream id: tells every stream-matcher instance that a
 * stream's config, status or address set changed, so it reloads that stream (no per-block polling).
 */
export const streamChange = z.object({
  v: z.literal(1),
  streamId: z.string().uuid(),
  kind: z.enum(['upsert', 'delete', 'addresses']),
  at: z.number().int(),
});
export type StreamChange = z.infer<typeof streamChange>;
