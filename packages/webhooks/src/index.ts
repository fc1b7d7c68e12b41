export {
  type NativeBalance,
  TEST_WEBHOOK_BODY,
  type TriggerResult,
  type WebhookBody,
  type WebhookErc20Approval,
  type WebhookErc1155Approval,
  type WebhookErc20Transfer,
  type WebhookErc721Approval,
  type WebhookInternalTx,
  type WebhookLog,
  type WebhookNftApproval,
  type WebhookNftMetadata,
  type WebhookNftTransfer,
  type WebhookTx,
  removalNoticeBody,
  serializeWebhook,
  withRetries,
} from './webhookBody.ts';
export {
  type SigningSecrets,
  signWebhook,
  standardWebhookSignature,
  webhookHeaders,
} from './signWebhook.ts';
export { standardWebhooksKey } from './standardWebhooksKey.ts';
export { type UrlCheck, checkWebhookUrl, isPrivateAddress } from './checkWebhookUrl.ts';
export { type PostResult, postWebhook } from './postWebhook.ts';
export {
  DELIVERY_BATCH_SIZE,
  type DeliveryOutcome,
  WEBHOOK_QUEUE,
  assignDeliveryJobs,
  enqueueAssignedDeliveries,
  deliveryBatchJobId,
  deliveryJobId,
  enqueueDeliveries,
  enqueueDelivery,
  enqueueFollowUps,
} from './deliveryJob.ts';
export { keccak256Bytes, keccak256Utf8 } from './keccak256.ts';
