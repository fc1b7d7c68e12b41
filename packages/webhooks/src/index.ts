export {
  TEST_WEBHOOK_BODY,
  bodyForAttempt,
  removalNoticeBody,
  serializeWebhook,
  withRetries,
} from './serializeWebhook.ts';
export {
  type SigningSecrets,
  signWebhook,
  standardWebhookSignature,
  webhookHeaders,
} from './signWebhook.ts';
export { standardWebhooksKey } from './standardWebhooksKey.ts';
export type { ResolveHost } from './createWebhookLookup.ts';
export { type PostResult, type WebhookPoster, createWebhookPoster } from './createWebhookPoster.ts';
export type { WebhookPolicy } from './webhookPolicy.ts';
export {
  BACKFILL_JOB_PRIORITY,
  DELIVERY_BATCH_SIZE,
  type DeliveryOutcome,
  WEBHOOK_QUEUE,
  assignDeliveryJobs,
  enqueueAssignedDeliveries,
  enqueueDeliveries,
  enqueueDelivery,
  enqueueFollowUps,
  type FollowUpJob,
} from './outbox/deliveryJobs.ts';
export { type QueueRedisMode, openWebhookQueue } from './openWebhookQueue.ts';
export { keccak256Utf8 } from './keccak256.ts';
export { redactUrl } from './redactUrl.ts';
export { type DeliveryJobReason, jobIdFor } from './outbox/jobIdFor.ts';
export { replayDelivery } from './outbox/replayDelivery.ts';
export { resumeHeldDeliveries } from './outbox/resumeHeldDeliveries.ts';
export { enqueueCommitted, nameThenEnqueue, renameThenEnqueue } from './outbox/handOver.ts';
