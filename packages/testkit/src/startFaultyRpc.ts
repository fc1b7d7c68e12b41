import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { type JsonRpcError, blockRangeCapError, resultCapError } from './logsCapError.ts';
import type { RequestSelector, RpcFaults } from './rpcFaults.ts';

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method: string;
  params?: unknown[];
}
type Answer = { jsonrpc: '2.0'; id: unknown } & ({ result: unknown } | { error: JsonRpcError });

interface FaultyRpcStats {
  /** HTTP requests received (whatever became of them). */
  httpRequests: number;
  /** JSON-RPC calls received, by method. */
  calls: Record<string, number>;
  /** Faults applied, by kind (`429`, `rate-limit`, `logs-cap`, `missing-method`, `hang`, `drop`, `lagging-logs`). */
  faults: Record<string, number>;
  /** Times (ms since epoch) of each HTTP 429 answered and its Retry-After, then of every request received. */
  tooManyAt: { at: number; retryAfterMs: number }[];
  requestTimes: number[];
}

export interface FaultyRpc {
  url: string;
  port: number;
  stats: FaultyRpcStats;
  /** Replaces the faults given (keys left out stay as they are; `undefined` turns one off). */
  setFaults(faults: Partial<RpcFaults>): void;
  /**
   * Runs `fn` (a change of the node's chain: mining, a revert) while no request of the proxy's
   * clients is at the node: those on their way there are answered first, new ones wait for `fn`.
   * A real node imports a block atomically; anvil answers a read of its newest block with the
   * state of the block it is mining at that moment, which this keeps its clients from seeing.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  faults(): RpcFaults;
  close(): Promise<void>;
}

/**
 * A JSON-RPC proxy in front of a real node (anvil) that behaves as hosted providers do under load
 * and limits: latency, HTTP 429 with Retry-After, a calls-per-second limit, eth_getLogs caps with
 * each provider's error, missing methods, hanging and dropped connections, and a node whose newest
 * blocks have no logs yet. Single and batch requests; faults change at runtime (`setFaults`).
 */
export async function startFaultyRpc(opts: {
  upstream: string;
  faults?: RpcFaults;
  port?: number;
}): Promise<FaultyRpc> {
  let faults: RpcFaults = { ...opts.faults };
  const stats: FaultyRpcStats = { httpRequests: 0, calls: {}, faults: {}, tooManyAt: [], requestTimes: [] };
  const count = (kind: string) => {
    stats.faults[kind] = (stats.faults[kind] ?? 0) + 1;
  };
  const sockets = new Set<Socket>();
  // Calls-per-second limit: a bucket of one second's calls, refilled continuously.
  let tokens = faults.requestsPerSecond ?? 0;
  let refilledAt = Date.now();
  // Blocks near the head whose logs were asked for once already (lagging node).
  const executed = new Set<number>();
  // exclusive(): requests at the node now, and the change that new ones wait for.
  let atNode = 0;
  let idle: (() => void) | undefined;
  let gate: Promise<unknown> | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    stats.httpRequests++;
    stats.requestTimes.push(Date.now());
    const parsed = JSON.parse(body) as Call | Call[];
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of calls) stats.calls[c.method] = (stats.calls[c.method] ?? 0) + 1;

    if (take(faults.drop, calls)) {
      count('drop');
      req.socket.destroy();
      return;
    }
    if (take(faults.hang, calls)) {
      count('hang');
      return; // never answered; the socket closes when the client gives up or the proxy closes
    }
    if (faults.latencyMs) await new Promise((r) => setTimeout(r, faults.latencyMs));
    const tooMany = faults.tooManyRequests;
    if (tooMany && tooMany.count > 0) {
      tooMany.count--;
      count('429');
      return answer429(res, tooMany.retryAfterSeconds);
    }
    const rps = faults.requestsPerSecond;
    if (rps) {
      const now = Date.now();
      tokens = Math.min(rps, tokens + ((now - refilledAt) / 1000) * rps);
      refilledAt = now;
      if (tokens < calls.length) {
        count('rate-limit');
        return answer429(res, Math.max(1, Math.ceil((calls.length - tokens) / rps)));
      }
      tokens -= calls.length;
    }

    const answers = await answerAll(calls);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
  }

  function answer429(res: ServerResponse, retryAfterSeconds: number) {
    stats.tooManyAt.push({ at: Date.now(), retryAfterMs: retryAfterSeconds * 1000 });
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too Many Requests' } }));
  }

  /** Missing methods and eth_getLogs answered here; the rest forwarded to the node in one batch. */
  async function answerAll(calls: Call[]): Promise<Answer[]> {
    const out: (Answer | undefined)[] = new Array(calls.length);
    const forward: number[] = [];
    await Promise.all(
      calls.map(async (c, i) => {
        if (faults.missingMethods?.some((m) => matches(m, c.method))) {
          count('missing-method');
          out[i] = {
            jsonrpc: '2.0',
            id: c.id,
            error: { code: -32601, message: `the method ${c.method} does not exist/is not available` },
          };
        } else if (c.method === 'eth_getLogs' && (faults.logsCap || faults.laggingLogs)) {
          out[i] = await getLogs(c);
        } else forward.push(i);
      }),
    );
    if (forward.length > 0) {
      const answers = await upstream(forward.map((i) => calls[i]!));
      forward.forEach((i, k) => {
        out[i] = answers[k]!;
      });
    }
    return out as Answer[];
  }

  async function getLogs(c: Call): Promise<Answer> {
    const filter = (c.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
    const [head] = await upstreamResults<string>([{ method: 'eth_blockNumber', params: [] }]);
    const headNumber = Number(head);
    const from = blockOf(filter.fromBlock, headNumber);
    const to = blockOf(filter.toBlock, headNumber);
    const cap = faults.logsCap;
    const rangeError = cap && blockRangeCapError(cap, from, to);
    if (rangeError) {
      count('logs-cap');
      return { jsonrpc: '2.0', id: c.id, error: rangeError };
    }
    const lagging = faults.laggingLogs;
    if (lagging) {
      const fresh: number[] = [];
      for (let n = Math.max(from, headNumber - lagging.depth + 1); n <= to; n++)
        if (!executed.has(n)) fresh.push(n);
      if (fresh.length > 0) {
        for (const n of fresh) executed.add(n);
        count('lagging-logs');
        return { jsonrpc: '2.0', id: c.id, result: [] };
      }
    }
    const [answer] = await upstream([c]);
    if (cap && answer && 'result' in answer && Array.isArray(answer.result)) {
      const numbers = (answer.result as { blockNumber: string }[]).map((l) => Number(l.blockNumber));
      const error = resultCapError(cap, from, to, numbers);
      if (error) {
        count('logs-cap');
        return { jsonrpc: '2.0', id: c.id, error };
      }
    }
    return answer!;
  }

  async function upstream(calls: Call[]): Promise<Answer[]> {
    while (gate) await gate.catch(() => undefined);
    const batch = calls.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c.method, params: c.params ?? [] }));
    atNode++;
    let answers: Answer[];
    try {
      const response = await fetch(opts.upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      });
      answers = (await response.json()) as Answer[];
    } finally {
      atNode--;
      if (atNode === 0) idle?.();
    }
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map((c, i) => ({ ...byId.get(i)!, id: c.id }));
  }

  async function upstreamResults<T>(calls: Call[]): Promise<T[]> {
    const answers = await upstream(calls);
    return answers.map((a) => {
      if ('error' in a) throw new Error(a.error.message);
      return a.result as T;
    });
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stats,
    setFaults(next) {
      faults = { ...faults, ...next };
      if ('requestsPerSecond' in next) {
        tokens = next.requestsPerSecond ?? 0;
        refilledAt = Date.now();
      }
    },
    faults: () => faults,
    async exclusive(fn) {
      while (gate) await gate.catch(() => undefined);
      const run = (async () => {
        if (atNode > 0)
          await new Promise<void>((resolve) => {
            idle = resolve;
          });
        idle = undefined;
        return fn();
      })();
      gate = run;
      try {
        return await run;
      } finally {
        gate = undefined;
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function take(selector: RequestSelector | undefined, calls: Call[]): boolean {
  if (!selector || selector.count <= 0) return false;
  const { methods } = selector;
  if (methods && !calls.some((c) => methods.some((m) => matches(m, c.method)))) return false;
  selector.count--;
  return true;
}

function matches(pattern: string, method: string): boolean {
  return pattern.endsWith('*') ? method.startsWith(pattern.slice(0, -1)) : pattern === method;
}

function blockOf(tag: string | undefined, head: number): number {
  if (tag === undefined || !tag.startsWith('0x')) return head; // latest, pending, safe, finalized
  return Number(tag);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}
