import { Counter, Histogram, type Registry } from '@tributary/runtime';

/**
 * The node as the follower meets it: request latency by method, and failures by method and kind
 * (rate-limited, transient, unsupported, range-too-large, other). Feeds createRpc's `onCall`.
 */
export function createRpcMetrics(
  registry: Registry,
): (method: string, seconds: number, outcome: string) => void {
  const duration = new Histogram({
    name: 'tributary_follower_rpc_request_duration_seconds',
    help: 'JSON-RPC request latency by method (answers and failures)',
    labelNames: ['method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'tributary_follower_rpc_errors_total',
    help: 'JSON-RPC requests that failed, by method and kind of failure',
    labelNames: ['method', 'kind'],
    registers: [registry],
  });
  return (method, seconds, outcome) => {
    duration.observe({ method }, seconds);
    if (outcome !== 'ok') errors.inc({ method, kind: outcome });
  };
}
