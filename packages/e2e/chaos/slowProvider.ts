import type { FaultyRpc } from '@tributary/testkit/bench';

export interface SlowProvider {
  from: number;
  until: number;
  /** The latencies set, one every few seconds. */
  latenciesMs: number[];
  /** JSON-RPC calls the services made through the proxy meanwhile. */
  calls: number;
}

/**
 * A slow provider for `ms`: every JSON-RPC request of the services waits a random 300-800 ms
 * (a new draw every 5 s), then the latency is taken away.
 */
export async function slowDownProvider(opts: {
  rpc: FaultyRpc;
  ms: number;
  log: (line: string) => void;
}): Promise<SlowProvider> {
  const from = Date.now();
  const countCalls = () => Object.values(opts.rpc.stats.calls).reduce((a, b) => a + b, 0);
  const before = countCalls();
  const latenciesMs: number[] = [];
  while (Date.now() - from < opts.ms) {
    const latencyMs = 300 + Math.floor(Math.random() * 501);
    latenciesMs.push(latencyMs);
    opts.rpc.setFaults({ latencyMs });
    await new Promise((r) => setTimeout(r, Math.min(5_000, opts.ms - (Date.now() - from))));
  }
  opts.rpc.setFaults({ latencyMs: undefined });
  opts.log(`provider fast again after ${opts.ms / 1000} s of ${latenciesMs.join('/')} ms`);
  return { from, until: Date.now(), latenciesMs, calls: countCalls() - before };
}
