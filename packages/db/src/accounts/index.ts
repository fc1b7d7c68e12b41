export {
  API_KEY_PREFIX_LENGTH,
  type ApiKeyAccount,
  type ApiKeyListing,
  type CreatedApiKey,
  type RevokeOutcome,
  createAccountWithKey,
  findAccountByApiKey,
  generateApiKey,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
} from './apiKeys.ts';
export { type WebhookSecrets, getWebhookSecrets, rotateWebhookSecret } from './webhookSecrets.ts';
