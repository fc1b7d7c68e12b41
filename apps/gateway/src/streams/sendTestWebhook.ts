import { randomUUID } from 'node:crypto';
import { type SigningSecrets, TEST_WEBHOOK_BODY, redactUrl, webhookHeaders } from '@tributary/webhooks';
import { BadRequestError } from '../errors/apiErrors.ts';
import type { StreamRouteDeps } from './streamDeps.ts';

/**
 * POSTs the test body to a webhook URL, signed like a real webhook, before a stream is stored,
 * updated or re-activated. Any 2xx passes; anything else is a 400 and nothing is stored.
 * A URL the operator's policy refuses gets the same message, and `details` saying it is not allowed
 * and why in words (never the address it resolved to: the answer must not map the network behind).
 */
export async function sendTestWebhook(
  deps: StreamRouteDeps,
  url: string,
  secrets: SigningSecrets,
): Promise<void> {
  const result = await deps.webhookPoster.post({
    url,
    body: TEST_WEBHOOK_BODY,
    headers: webhookHeaders({ id: randomUUID(), body: TEST_WEBHOOK_BODY, secrets, queueSize: 0 }),
    timeoutMs: deps.testWebhookTimeoutMs,
  });
  if (result.ok) return;
  // Credentials in the URL never reach the log, nor the answer (proxies and clients log it too).
  // The reason (a resolved address, a refused connection) is for the log alone.
  const shown = redactUrl(url);
  deps.logger.info({ url: shown, error: result.error }, 'test webhook failed');
  const message = `Could not POST to ${shown}. Please check your webhook URL.`;
  if (result.refused === null) throw new BadRequestError(message);
  throw new BadRequestError(message, {
    details: { webhookUrl: { message: result.refused } },
  });
}
