import { randomUUID } from 'node:crypto';
import { type SigningSecrets, TEST_WEBHOOK_BODY, postWebhook, webhookHeaders } from '@tributary/webhooks';
import { BadRequestError } from '../errors/apiErrors.ts';
import type { StreamRouteDeps } from './streamDeps.ts';

/**
 * POSTs the test body to a webhook URL, signed like a real webhook, before a stream is stored,
 * updated or re-activated. Any 2xx passes; anything else is a 400 and nothing is stored.
 */
export async function sendTestWebhook(
  deps: StreamRouteDeps,
  url: string,
  secrets: SigningSecrets,
): Promise<void> {
  const result = await postWebhook({
    url,
    body: TEST_WEBHOOK_BODY,
    headers: webhookHeaders({ id: randomUUID(), body: TEST_WEBHOOK_BODY, secrets, queueSize: 0 }),
    timeoutMs: deps.testWebhookTimeoutMs,
    allowPrivate: deps.allowPrivateWebhookUrls,
  });
  if (!result.ok) {
    deps.logger.info({ url, error: result.error }, 'test webhook failed');
    throw new BadRequestError(`Could not POST to ${url}. Please check your webhook URL.`);
  }
}
