// An open-loop HTTP load generator (the wrk2 model): request k is due at start + k / rate, sent
// then whatever the earlier responses are doing, and its latency is measured from when it was due
// (so time spent waiting for a free connection or behind a slow response counts, and a stall
// cannot hide: no coordinated omission). Closed-loop rate limiting instead sends each second's
// quota in a burst from every connection at once, which measures the burst, not the rate.
import { performance } from 'node:perf_hooks';
import { KeepAliveConnection, type RawResponse } from './keepAliveConnection.ts';

export interface OpenLoopOptions {
  /** e.g. http://127.0.0.1:8080; several: replicas, taken in turn (connections split evenly). */
  origins: readonly string[];
  rate: number;
  seconds: number;
  /** Most connections open at once (requests beyond them wait, and the wait counts). */
  maxConnections: number;
  headers: Record<string, string>;
  nextPath(): string;
  onResponse?(path: string, status: number, body: Buffer): void;
}

export interface OpenLoopResult {
  due: number;
  completed: number;
  statusCounts: Record<string, number>;
  errors: number;
  /** Latencies from the due time, in ms, ascending. */
  latenciesMs: number[];
  /** Each second of the run (by due time): responses, median, p99 and slowest latency, in ms. */
  perSecond: SecondStats[];
  seconds: number;
  bytes: number;
  maxInFlight: number;
}

interface SecondStats {
  second: number;
  responses: number;
  p50: number;
  p99: number;
  max: number;
  /**
   * The most any request of the second was sent after it was due, in ms: the generator's own stall
   * (its event loop held up by its garbage collector, or short of CPU on the cores it shares with
   * the service). A slow second with a small figure here was slow in the service.
   */
  sendLateMax: number;
}

/** Latencies (and how late each request was sent) grouped by the second their requests were due in. */
function bySecond(timeline: readonly (readonly [number, number, number])[]): SecondStats[] {
  const seconds: number[][] = [];
  const late: number[] = [];
  for (const [at, ms, sentLate] of timeline) {
    const second = Math.floor(at / 1000);
    const bucket = seconds[second] ?? [];
    bucket.push(ms);
    seconds[second] = bucket;
    late[second] = Math.max(late[second] ?? 0, sentLate);
  }
  return Array.from(seconds, (ms = [], second) => {
    ms.sort((a, b) => a - b);
    const r = (x: number) => Number(x.toFixed(1));
    return {
      second,
      responses: ms.length,
      p50: r(percentile(ms, 50)),
      p99: r(percentile(ms, 99)),
      max: r(percentile(ms, 100)),
      sendLateMax: r(late[second] ?? 0),
    };
  });
}

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return 0;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i] as number;
}

/** Up to `max` keep-alive connections; a request waits (and the wait counts) when all are busy. */
function connectionPool(origin: string, max: number, headers: Record<string, string>) {
  const url = new URL(origin);
  const host = url.hostname;
  const port = Number(url.port || 80);
  const headerLines = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const idle: KeepAliveConnection[] = [];
  const all = new Set<KeepAliveConnection>();
  const waiting: ((c: KeepAliveConnection) => void)[] = [];
  const acquire = (): Promise<KeepAliveConnection> | KeepAliveConnection => {
    // The server closes idle connections after its keep-alive timeout (5 s): skip those, and close
    // ours before it does, as HTTP clients do (a request written as the server closes would fail).
    for (let c = idle.pop(); c; c = idle.pop()) {
      if (c.usable && performance.now() - c.idleSince < CLIENT_IDLE_MS) return c;
      c.destroy();
      all.delete(c);
    }
    if (all.size < max) {
      const fresh = new KeepAliveConnection(host, port);
      all.add(fresh);
      return fresh;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (c: KeepAliveConnection) => {
    if (!c.usable) {
      all.delete(c);
      const next = waiting.shift();
      if (next) {
        const fresh = new KeepAliveConnection(host, port);
        all.add(fresh);
        next(fresh);
      }
      return;
    }
    const next = waiting.shift();
    if (next) next(c);
    else idle.push(c);
  };
  return {
    async get(path: string): Promise<RawResponse> {
      const c = await acquire();
      try {
        return await c.get(path, headerLines);
      } finally {
        release(c);
      }
    },
    destroy() {
      for (const c of all) c.destroy();
    },
  };
}

const STRAGGLER_SECONDS = 60;
/** Idle keep-alive connections older than this are not reused (the gateway closes them at 5 s). */
const CLIENT_IDLE_MS = 4_000;

/** Connection pools of several origins, one request to each in turn. */
function roundRobin(origins: readonly string[], max: number, headers: Record<string, string>) {
  const pools = origins.map((origin) =>
    connectionPool(origin, Math.max(1, Math.floor(max / origins.length)), headers),
  );
  let next = 0;
  return {
    get(path: string): Promise<RawResponse> {
      const pool = pools[next++ % pools.length] as ReturnType<typeof connectionPool>;
      return pool.get(path);
    },
    destroy() {
      for (const pool of pools) pool.destroy();
    },
  };
}

export function runOpenLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const pool = roundRobin(o.origins, o.maxConnections, o.headers);
  const total = Math.round(o.rate * o.seconds);
  const intervalMs = 1000 / o.rate;
  const latencies: number[] = [];
  const timeline: [number, number, number][] = [];
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  let bytes = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let sent = 0;
  let settled = 0;
  const start = performance.now();

  return new Promise((resolve) => {
    let finished = false;
    // Responses still missing this long after the last request was due count as errors.
    const deadline = setTimeout(() => finish(), (o.seconds + STRAGGLER_SECONDS) * 1000);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      errors += total - settled;
      pool.destroy();
      latencies.sort((a, b) => a - b);
      resolve({
        due: total,
        completed: latencies.length,
        statusCounts,
        errors,
        latenciesMs: latencies,
        perSecond: bySecond(timeline),
        seconds: (performance.now() - start) / 1000,
        bytes,
        maxInFlight,
      });
    };
    const fire = async (dueAt: number) => {
      const sentLate = performance.now() - dueAt;
      const path = o.nextPath();
      inFlight++;
      if (inFlight > maxInFlight) maxInFlight = inFlight;
      try {
        const response = await pool.get(path);
        const { status, body } = response;
        if (finished) return;
        const ms = performance.now() - dueAt;
        latencies.push(ms);
        timeline.push([dueAt - start, ms, sentLate]);
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        bytes += response.bytes;
        o.onResponse?.(path, status, body);
      } catch {
        if (!finished) errors++;
      } finally {
        inFlight--;
        if (!finished && ++settled === total) finish();
      }
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * intervalMs <= now) {
        void fire(start + sent * intervalMs);
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - performance.now()));
    };
    if (total === 0) finish();
    else tick();
  });
}
