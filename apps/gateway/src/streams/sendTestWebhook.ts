import { randomUUID } from 'node:crypto';
import { TEST_WEBHOOK_BODY, postWebhook, redactUrl, webhookHeaders } from '@tributary/webhooks';
import { BadRequestError } from '../errors/apiErrors.ts';
import type { StreamRouteDeps } from './streamDeps.ts';

/**
 * POSTs the test body to a webhook URL, signed like a real webhook, before a stream is stored,
 * updated or re-activated. Any 2xx passes; anything else is a 400 and nothing is stored.
 */
export async function sendTestWebhook(deps: StreamRouteDeps, url: string, secret: string): Promise<void> {
  const result = await postWebhook({
    url,
    body: TEST_WEBHOOK_BODY,
    headers: webhookHeaders({ id: randomUUID(), body: TEST_WEBHOOK_BODY, secret, queueSize: 0 }),
    timeoutMs: deps.testWebhookTimeoutMs,
    allowPrivate: deps.allowPrivateWebhookUrls,
  });
  if (!result.ok) {
    // Credentials in the URL never reach the log, nor the answer (proxies and clients log it too).
    // The reason (a resolved address, a refused connection) is for the log alone.
    const shown = redactUrl(url);
    deps.logger.info({ url: shown, error: result.error }, 'test webhook failed');
    throw new BadRequestError(`Could not POST to ${shown}. Please check your webhook URL.`);
  }
}
