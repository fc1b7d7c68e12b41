/** Requests answered and their latencies since the previous drain. */
export interface ApiCounts {
  requests: number;
  errors: number;
  latenciesMs: number[];
}

/**
 * A steady trickle of data-interface requests (`paths`, in turn) while the tables grow, so the
 * gateway's memory and its answers' latency are measured in use. At most 4 in flight: a request
 * due while they are busy is skipped, and counted as an error.
 */
export function startApiLoad(o: {
  gatewayUrl: string;
  apiKey: string;
  perSecond: number;
  paths: readonly string[];
}): { drain(): ApiCounts; stop(): void } {
  let counts: ApiCounts = { requests: 0, errors: 0, latenciesMs: [] };
  let inFlight = 0;
  let i = 0;
  const timer =
    o.perSecond > 0
      ? setInterval(() => {
          if (inFlight >= 4) return void counts.errors++;
          const path = o.paths[i++ % o.paths.length]!;
          const started = Date.now();
          inFlight++;
          fetch(`${o.gatewayUrl}${path}`, {
            headers: { 'x-api-key': o.apiKey },
            signal: AbortSignal.timeout(30_000),
          })
            .then(async (res) => {
              await res.arrayBuffer();
              counts.requests++;
              if (res.ok) counts.latenciesMs.push(Date.now() - started);
              else counts.errors++;
            })
            .catch(() => void counts.errors++)
            .finally(() => void inFlight--);
        }, 1000 / o.perSecond)
      : undefined;
  return {
    drain() {
      const out = counts;
      counts = { requests: 0, errors: 0, latenciesMs: [] };
      return out;
    },
    stop: () => clearInterval(timer),
  };
}
