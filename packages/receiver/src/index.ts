export {
  type Receiver,
  type ReceiverAnswer,
  type ReceiverOptions,
  type ReceivedRequest,
  createReceiver,
} from './createReceiver.ts';
export { createExpressHandler } from './createExpressHandler.ts';
export type { HandlerContext, Handlers, Outcome, WebhookHandler } from './processWebhook.ts';
export { DEFAULT_TABLE } from './receiverTable.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type Verification,
  type WebhookHeaders,
  verifySignatures,
} from './verifySignatures.ts';
export { type ListenOptions, ListenRefusedError, listen } from './listen.ts';
export type * from './webhookBody.ts';
