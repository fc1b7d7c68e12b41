export {
  type NativeBalance,
  TEST_WEBHOOK_BODY,
  type TriggerResult,
  type WebhookBody,
  type WebhookErc20Approval,
  type WebhookErc20Transfer,
  type WebhookInternalTx,
  type WebhookLog,
  type WebhookTx,
  serializeWebhook,
  withRetries,
} from './webhookBody.ts';
export { signWebhook, standardWebhookSignature, webhookHeaders } from './signWebhook.ts';
export { type UrlCheck, checkWebhookUrl, isPrivateAddress } from './checkWebhookUrl.ts';
export { type PostResult, postWebhook } from './postWebhook.ts';
export {
  type DeliveryJob,
  type DeliveryOutcome,
  WEBHOOK_QUEUE,
  deliveryJob,
  deliveryJobId,
  enqueueDeliveries,
  enqueueDelivery,
} from './deliveryJob.ts';
