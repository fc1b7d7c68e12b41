import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Receiver } from './createReceiver.ts';

/** What a webhook body may weigh before the handler refuses it (Tributary's are far below). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A request handler for express (or node's http server) that answers webhook POSTs with the
 * receiver. Signatures cover the exact bytes, so it reads the body itself: mount it before any
 * body parser (`app.post('/webhook', createExpressHandler(receiver))`), or after `express.raw()`.
 */
export function createExpressHandler(
  receiver: Receiver,
): (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const answer = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    let rawBody: Buffer | undefined;
    if (Buffer.isBuffer(req.body)) rawBody = req.body;
    else if (
      req.body !== undefined &&
      req.body !== null &&
      !(typeof req.body === 'object' && Object.keys(req.body).length === 0)
    ) {
      // express.json() ran first: the bytes the signatures cover are gone.
      answer(500, {
        outcome: 'failed',
        reason: 'the body was parsed before the receiver: mount it before express.json()',
      });
      return;
    } else rawBody = await readBody(req);
    if (rawBody === undefined) {
      answer(413, { outcome: 'refused', reason: 'body too large' });
      return;
    }
    const { status, body } = await receiver.handle({ headers: req.headers, rawBody });
    answer(status, body);
  };
}
