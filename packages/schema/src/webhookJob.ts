import { z } from 'zod';

// The jobs of the webhook queue (BullMQ `webhooks`): what the matcher, the gateway (replays) and the
// sender's relay enqueue, and what the sender reads.

/**
 * One delivery. The job carries only the delivery id: body, URL and secret are read at each
 * attempt, so an update applies to retries. `attemptsBefore`: attempts made before this job
 * existed (a delivery whose first attempt ran inside a batch job continues here).
 */
export const deliveryJob = z.object({
  v: z.literal(1),
  deliveryId: z.string().uuid(),
  attemptsBefore: z.number().int().min(0).optional(),
  /**
   * The endpoint the delivery was last put off for (its URL then): while that endpoint has no
   * free slot the job is put off again without reading the delivery. Only a hint: a free slot
   * sends to the stream's URL as read then.
   */
  busyEndpoint: z.string().optional(),
});
export type DeliveryJob = z.infer<typeof deliveryJob>;

/**
 * The first attempt of several deliveries (those of one block event): one BullMQ job instead of
 * one each, which is most of the queue's cost per webhook. A member that must be tried again, or
 * waits for its endpoint, continues as its own `deliveryJob`.
 */
export const deliveryBatchJob = z.object({
  v: z.literal(2),
  deliveryIds: z.array(z.string().uuid()).min(1).max(1_000),
});
export type DeliveryBatchJob = z.infer<typeof deliveryBatchJob>;

export const webhookJob = z.discriminatedUnion('v', [deliveryJob, deliveryBatchJob]);
export type WebhookJob = z.infer<typeof webhookJob>;
