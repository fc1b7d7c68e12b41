import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { checkWebhookUrl } from './checkWebhookUrl.ts';

/** What one POST did. 2xx is delivered; anything else is a failed attempt with a reason. */
export type PostResult =
  | { ok: true; statusCode: number; latencyMs: number }
  | { ok: false; statusCode: number | null; latencyMs: number; error: string };

// node:http with keep-alive rather than fetch: about a fifth of the CPU per request, which is
// what bounds a sender process's deliveries per second.
// maxFreeSockets above a sender's concurrency: with the default (256) a dip in load closed the
// surplus keep-alive connections, and the next burst paid for new ones.
const agents = {
  http: new HttpAgent({ keepAlive: true, scheduling: 'lifo', maxFreeSockets: 2_048 }),
  https: new HttpsAgent({ keepAlive: true, scheduling: 'lifo', maxFreeSockets: 2_048 }),
};

class PostTimeout extends Error {}

function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        agent: https ? agents.https : agents.http,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        // Drain the body so the connection can be reused; its content is not used.
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          resolve(res.statusCode ?? 0);
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    // The whole exchange (connect, send, answer) within timeoutMs.
    const timer = setTimeout(() => req.destroy(new PostTimeout()), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

/** POSTs the exact bytes with a timeout; redirects are not followed (they could lead into private ranges). */
export async function postWebhook(opts: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}): Promise<PostResult> {
  const started = Date.now();
  const check = await checkWebhookUrl(opts.url, { allowPrivate: opts.allowPrivate });
  if (!check.ok) return { ok: false, statusCode: null, latencyMs: 0, error: `refused URL: ${check.reason}` };
  try {
    const status = await post(check.url, opts.headers, opts.body, opts.timeoutMs);
    const latencyMs = Date.now() - started;
    if (status >= 200 && status < 300) return { ok: true, statusCode: status, latencyMs };
    return { ok: false, statusCode: status, latencyMs, error: `HTTP ${status}` };
  } catch (err) {
    const latencyMs = Date.now() - started;
    const e = err as Error & { code?: string };
    const message = e instanceof PostTimeout ? `timeout after ${opts.timeoutMs} ms` : (e.code ?? e.message);
    return { ok: false, statusCode: null, latencyMs, error: message };
  }
}
