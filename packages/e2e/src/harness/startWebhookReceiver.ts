import { type IncomingHttpHeaders, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookBody } from '@tributary/schema';
import { TEST_WEBHOOK_BODY } from '@tributary/webhooks';

export interface ReceivedWebhook {
  /** The request's path (streams of one test may point at paths of their own). */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body bytes as received (UTF-8). */
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: webhook bodies are compared field by field
  body: any;
  /**
   * Why the body is not of the webhook body contract (`webhookBody` of packages/schema, parsed
   * strictly), or undefined: it is, or it is the test webhook (the hosted service's empty body).
   */
  contractIssues: string | undefined;
  /** Whether this receiver answered 2xx (false: it held the request until the sender went away). */
  acknowledged: boolean;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /**
   * Requests for which `hold` returns true get no answer: the receiver is "slow". The promise
   * resolves with the first held request.
   */
  holdWhen(hold: (w: ReceivedWebhook) => boolean): Promise<ReceivedWebhook>;
  /** The status to answer each request with (default 200): a failing endpoint, one that recovers. */
  answerWith(status: (w: ReceivedWebhook) => number): void;
  /** The webhooks received so far whose body is not of the contract: a test expects none. */
  offContract(): ReceivedWebhook[];
  close(): Promise<void>;
}

/** Checked when received, whatever the test then reads of the body. */
function contractIssuesOf(raw: string, body: unknown): string | undefined {
  if (raw === TEST_WEBHOOK_BODY) return undefined;
  if (body === undefined) return 'not JSON';
  const parsed = webhookBody.safeParse(body);
  return parsed.success ? undefined : JSON.stringify(parsed.error.issues);
}

/**
 * A customer's endpoint on 127.0.0.1 (or `host`: the docker bridge, for services in containers):
 * records every POST and answers 200 (unless told otherwise or to hold).
 */
export async function startWebhookReceiver(opts: { host?: string } = {}): Promise<WebhookReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const received: ReceivedWebhook[] = [];
  const held = new Set<ServerResponse>();
  let hold: ((w: ReceivedWebhook) => boolean) | undefined;
  let onHeld: ((w: ReceivedWebhook) => void) | undefined;
  let statusOf: (w: ReceivedWebhook) => number = () => 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const webhook: ReceivedWebhook = {
        path: req.url ?? '/',
        headers: req.headers,
        raw,
        body,
        contractIssues: contractIssuesOf(raw, body),
        acknowledged: false,
      };
      received.push(webhook);
      if (hold?.(webhook)) {
        hold = undefined;
        held.add(res);
        res.on('close', () => held.delete(res));
        onHeld?.(webhook);
        return;
      }
      const status = statusOf(webhook);
      webhook.acknowledged = status >= 200 && status < 300;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/webhook`,
    received,
    holdWhen(predicate) {
      hold = predicate;
      return new Promise((resolve) => {
        onHeld = resolve;
      });
    },
    answerWith(status) {
      statusOf = status;
    },
    offContract() {
      return received.filter((w) => w.contractIssues !== undefined);
    },
    async close() {
      for (const res of held) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
