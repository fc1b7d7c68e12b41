/** One webhook as the gateway's listen route hands it over. */
interface ListenedWebhook {
  id: string;
  blockNumber: string;
  confirmed: boolean;
  removed: boolean;
  headers: Record<string, string>;
  body: string;
}

export interface ListenOptions {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  apiUrl: string;
  apiKey: string;
  streamId: string;
  /** The local URL each webhook is POSTed to. */
  forwardTo: string;
  /** One line per event (a webhook forwarded, a reconnection). */
  print: (line: string) => void;
  /** Stops listening (Ctrl-C). */
  signal?: AbortSignal;
  /** How long one poll may wait at the gateway for a webhook (ms, at most 25000). */
  waitMs?: number;
  /** The pause before polling again after a failed poll (ms). */
  retryMs?: number;
}

/** A refusal that polling again cannot fix (a wrong key, an unknown stream). */
export class ListenRefusedError extends Error {
  override readonly name = 'ListenRefusedError';
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** An error's own words: fetch's "fetch failed" says less than its cause (ECONNREFUSED, ...). */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { message?: unknown } | undefined;
  return typeof cause?.message === 'string' ? cause.message : err.message;
}

const kindOf = (w: ListenedWebhook) => (w.removed ? 'removed' : w.confirmed ? 'confirmed' : 'unconfirmed');

/** POSTs one webhook to the local URL; the line to print. */
async function forward(w: ListenedWebhook, to: string, signal?: AbortSignal): Promise<string> {
  const where = `block ${w.blockNumber} ${kindOf(w)} ${w.id}`;
  try {
    const res = await fetch(to, {
      method: 'POST',
      headers: w.headers,
      body: w.body,
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
    });
    const answer = (await res.text()).replace(/\s+/g, ' ').slice(0, 120);
    return `${res.status} ${where}${answer ? ` ${answer}` : ''}`;
  } catch (err) {
    return `ERR ${where} ${reasonOf(err)}`;
  }
}

/**
 * `pnpm listen`: long-polls the gateway for the stream's new webhooks (no sender has to reach this
 * machine) and POSTs each, with the headers the gateway signed, to a local URL, printing one line
 * per webhook: the local answer's status, the block, the kind and the webhook-id. A failed poll
 * (the gateway restarting, the network gone) is tried again with the same cursor, so nothing is
 * skipped; a refusal (401, 404, a cursor refused) ends it. Resolves when `signal` aborts.
 */
export async function listen(opts: ListenOptions): Promise<void> {
  const base = opts.apiUrl.replace(/\/+$/, '');
  const waitMs = opts.waitMs ?? 20_000;
  let cursor: string | undefined;
  let failing = false;
  while (!opts.signal?.aborted) {
    const url = new URL(`${base}/streams/evm/${encodeURIComponent(opts.streamId)}/listen`);
    if (cursor !== undefined) url.searchParams.set('cursor', cursor);
    url.searchParams.set('waitMs', String(waitMs));
    let page: { result: ListenedWebhook[]; cursor: string };
    try {
      const timeout = AbortSignal.timeout(waitMs + 15_000);
      const res = await fetch(url, {
        headers: { 'x-api-key': opts.apiKey },
        signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
      });
      if (res.status === 401 || res.status === 404 || res.status === 400) {
        const message = ((await res.json().catch(() => ({}))) as { message?: string }).message;
        throw new ListenRefusedError(`the gateway answered ${res.status}${message ? `: ${message}` : ''}`);
      }
      if (res.status !== 200) throw new Error(`the gateway answered ${res.status}`);
      page = (await res.json()) as typeof page;
    } catch (err) {
      if (err instanceof ListenRefusedError) throw err;
      if (opts.signal?.aborted) break;
      if (!failing) opts.print(`connection lost (${reasonOf(err)}); reconnecting`);
      failing = true;
      await sleep(opts.retryMs ?? 1_000, opts.signal);
      continue;
    }
    if (cursor === undefined)
      opts.print(`listening to stream ${opts.streamId} at ${base}, forwarding to ${opts.forwardTo}`);
    else if (failing) opts.print('reconnected');
    failing = false;
    for (const w of page.result) opts.print(await forward(w, opts.forwardTo, opts.signal));
    cursor = page.cursor;
  }
}
