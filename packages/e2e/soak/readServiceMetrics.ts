import type { ServiceSample } from './soakSample.ts';

export interface PromSeries {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments and timestamps left out). */
export function parsePrometheus(text: string): PromSeries[] {
  const out: PromSeries[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of a metric's series whose labels include `match`; null when it has none. */
export function metricSum(
  series: readonly PromSeries[],
  name: string,
  match: Record<string, string> = {},
): number | null {
  const hits = series.filter(
    (s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v),
  );
  return hits.length === 0 ? null : hits.reduce((a, s) => a + s.value, 0);
}

/** A service's /metrics; null when it does not answer (restarting, say). */
export async function readServiceMetrics(opsUrl: string): Promise<PromSeries[] | null> {
  try {
    const res = await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
    return res.ok ? parsePrometheus(await res.text()) : null;
  } catch {
    return null;
  }
}

/** Its process: memory and event-loop delay, from prom-client's default metrics. */
export function serviceSample(series: readonly PromSeries[]): ServiceSample | null {
  const v = (name: string) => metricSum(series, name);
  const rss = v('process_resident_memory_bytes');
  if (rss === null) return null;
  const ms = (name: string) => (v(name) ?? Number.NaN) * 1000;
  return {
    rssBytes: rss,
    heapUsedBytes: v('nodejs_heap_size_used_bytes') ?? Number.NaN,
    heapTotalBytes: v('nodejs_heap_size_total_bytes') ?? Number.NaN,
    heapLiveBytes: v('nodejs_heap_live_bytes') ?? Number.NaN,
    heapLiveDataBytes: v('nodejs_heap_live_data_bytes') ?? Number.NaN,
    externalBytes: v('nodejs_external_memory_bytes') ?? Number.NaN,
    arrayBuffersLiveBytes: v('nodejs_array_buffers_live_bytes') ?? Number.NaN,
    eventLoopP50Ms: ms('nodejs_eventloop_lag_p50_seconds'),
    eventLoopP99Ms: ms('nodejs_eventloop_lag_p99_seconds'),
    eventLoopMaxMs: ms('nodejs_eventloop_lag_max_seconds'),
  };
}
