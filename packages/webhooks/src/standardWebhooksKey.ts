/**
 * The account's secret as a Standard Webhooks key: `whsec_` + base64 of the secret's UTF-8 bytes,
 * the bytes `webhook-signature` is keyed with. The official verifiers (npm `standardwebhooks`,
 * `svix`, and their ports) take it as it is.
 */
export function standardWebhooksKey(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}
