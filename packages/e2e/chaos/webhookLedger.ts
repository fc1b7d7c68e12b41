import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook } from '@tributary/webhooks';
import type { ArrivedWebhook } from '../kinds/countStreamWebhooks.ts';
import { webhookItems } from '../kinds/webhookItems.ts';

export interface ReceivedWebhook extends ArrivedWebhook {
  retries: number;
}

export interface WebhookLedger {
  url: string;
  received: ReceivedWebhook[];
  /** The account's signing secret, once known (webhooks before it are checked when it is set). */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

/**
 * A webhook receiver that answers 200 after a random 0..maxLatencyMs and writes down every POST:
 * which stream, block and confirmation it carries (or that it is a removal notice), its items
 * (webhookItems), its `webhook-id`, and whether its `x-signature` verifies. The test webhook
 * (empty streamId) is not recorded.
 */
export async function startWebhookLedger(opts: { maxLatencyMs: number }): Promise<WebhookLedger> {
  const received: ReceivedWebhook[] = [];
  const raw: { body: string; signature: string; entry: ReceivedWebhook }[] = [];
  let secret: string | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      setTimeout(
        () => {
          try {
            const parsed = JSON.parse(body) as {
              streamId: string;
              confirmed: boolean;
              removed?: boolean;
              retries: number;
              block: { hash: string; number: string };
            };
            if (parsed.streamId) {
              const signature = String(req.headers['x-signature'] ?? '');
              const entry: ReceivedWebhook = {
                webhookId: String(req.headers['webhook-id'] ?? ''),
                streamId: parsed.streamId,
                blockHash: parsed.block.hash,
                blockNumber: Number(parsed.block.number),
                confirmed: parsed.confirmed,
                removed: parsed.removed === true,
                retries: parsed.retries,
                items: webhookItems(parsed),
                signatureValid: secret !== undefined && signWebhook(body, secret) === signature,
              };
              received.push(entry);
              if (secret === undefined) raw.push({ body, signature, entry });
            }
            res.statusCode = 200;
          } catch {
            res.statusCode = 400;
          }
          res.end();
        },
        Math.floor(Math.random() * opts.maxLatencyMs),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    setSecret(s) {
      secret = s;
      for (const r of raw.splice(0)) r.entry.signatureValid = signWebhook(r.body, s) === r.signature;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
