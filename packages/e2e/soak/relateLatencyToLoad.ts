import type { Series } from './soakSeries.ts';

export interface LatencyAgainstLoad {
  latency: string;
  /** The load quantities that moved most with it after warm-up, strongest first. */
  related: { load: string; r: number; samples: number }[];
}

/** Fewer common samples than this say nothing. */
const MIN_SAMPLES = 6;

/**
 * Sets each latency against what the shared parts did (`load` series: PostgreSQL's checkpoints,
 * vacuums and reads, the machine's CPU), sample by sample after warm-up: Pearson's r of the two,
 * the `top` strongest by |r|. Latencies of several services that step up together with one load
 * point to it; a latency that moves with none is the service's own. A correlation, not a proof.
 */
export function relateLatencyToLoad(
  series: readonly Series[],
  warmupHours: number,
  top = 3,
): LatencyAgainstLoad[] {
  const after = (s: Series) => new Map(s.points.filter((p) => p.x >= warmupHours).map((p) => [p.x, p.y]));
  const loads = series.filter((s) => s.kind === 'load').map((s) => ({ name: s.name, at: after(s) }));
  return series
    .filter((s) => s.kind === 'latency')
    .map((lat) => {
      const at = after(lat);
      const related = loads
        .map((load) => {
          const xs: number[] = [];
          const ys: number[] = [];
          for (const [x, y] of at) {
            const l = load.at.get(x);
            if (l === undefined) continue;
            xs.push(l);
            ys.push(y);
          }
          return { load: load.name, r: pearson(xs, ys), samples: xs.length };
        })
        .filter((c) => c.samples >= MIN_SAMPLES && c.r !== null)
        .map((c) => ({ ...c, r: c.r as number }))
        .sort((a, b) => Math.abs(b.r) - Math.abs(a.r))
        .slice(0, top);
      return { latency: lat.name, related };
    });
}

/** Pearson's correlation coefficient; null when either side does not vary. */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 2 || ys.length !== n) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}
