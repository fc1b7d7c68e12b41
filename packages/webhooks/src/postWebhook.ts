import { checkWebhookUrl } from './checkWebhookUrl.ts';

/** What one POST did. 2xx is delivered; anything else is a failed attempt with a reason. */
export type PostResult =
  | { ok: true; statusCode: number; latencyMs: number }
  | { ok: false; statusCode: number | null; latencyMs: number; error: string };

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
    const res = await fetch(check.url, {
      method: 'POST',
      headers: opts.headers,
      body: opts.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    // Drain the body so the connection can be reused; its content is not used.
    await res.arrayBuffer().catch(() => undefined);
    const latencyMs = Date.now() - started;
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, latencyMs };
    return { ok: false, statusCode: res.status, latencyMs, error: `HTTP ${res.status}` };
  } catch (err) {
    const latencyMs = Date.now() - started;
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const message =
      e.name === 'TimeoutError'
        ? `timeout after ${opts.timeoutMs} ms`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ok: false, statusCode: null, latencyMs, error: message };
  }
}
