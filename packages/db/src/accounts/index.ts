export {
  type ApiKeyAccount,
  type CreatedApiKey,
  createAccountWithKey,
  findAccountByApiKey,
  listApiKeys,
  revokeApiKey,
} from './apiKeys.ts';
export { type WebhookSecrets, getWebhookSecrets, rotateWebhookSecret } from './webhookSecrets.ts';
