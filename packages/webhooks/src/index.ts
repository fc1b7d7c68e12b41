export {
  TEST_WEBHOOK_BODY,
  bodyForAttempt,
  removalNoticeBody,
  serializeWebhook,
} from './serializeWebhook.ts';
export {
  type SigningSecrets,
  signWebhook,
  webhookHeaders,
} from './signWebhook.ts';
export { standardWebhooksKey } from './standardWebhooksKey.ts';
export { type WebhookPoster, createWebhookPoster } from './createWebhookPoster.ts';
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
  type FollowUpJob,
} from './outbox/deliveryJobs.ts';
export { openWebhookQueue } from './openWebhookQueue.ts';
export { openWebhookWorker } from './openWebhookWorker.ts';
export { redactUrl } from './redactUrl.ts';
export { jobIdFor } from './outbox/jobIdFor.ts';
export { replayDelivery } from './outbox/replayDelivery.ts';
export { resumeHeldDeliveries } from './outbox/resumeHeldDeliveries.ts';
export { enqueueCommitted, nameThenEnqueue, renameThenEnqueue } from './outbox/handOver.ts';
