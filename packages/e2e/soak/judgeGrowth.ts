import { leastSquares } from './leastSquares.ts';
import type { Series, SeriesKind } from './soakSeries.ts';

type Verdict = 'flat' | 'grows' | 'levels off' | 'falls' | 'too few samples';

export interface Growth {
  quantity: string;
  kind: SeriesKind;
  unit: Series['unit'];
  /** Its points are events (full collections), not samples (see Series). */
  perEvent?: true;
  samples: number;
  first: number;
  last: number;
  mean: number;
  /** Least-squares slope over the samples after warm-up, per hour. */
  perHour: number;
  /** Its standard error (null with fewer than three samples). */
  perHourStdErr: number | null;
  /** How far the samples stray from that line: their residuals' standard deviation (null likewise). */
  scatter: number | null;
  /** perHour as a percentage of the mean. */
  percentOfMeanPerHour: number;
  /**
   * The slope over the later half of those samples, per hour (null with fewer than three): a leak
   * grows as fast in the later half as over the whole run; growth that levels off (V8 sizing its
   * heap to the load, code the JIT compiles late, a cache filling up, a step) does not.
   */
  laterHalf: { perHour: number; perHourStdErr: number } | null;
  verdict: Verdict;
  /**
   * The quantity whose verdict the goals read instead of this one's: a service's live heap less
   * code when heap snapshots of the same run counted its objects (see judgeHeapSnapshotGrowth).
   */
  judgedBy?: string;
}

/**
 * How much a slope may be and still count as flat, per hour: noise is two standard errors of the
 * slope; beyond it, a change smaller than this share of the mean (or this floor) is not counted
 * either. Memory is held to 1 %/h (a leak of that size doubles a process in four days);
 * latency, backlogs and rates to 5 %/h.
 */
const TOLERANCE: Record<SeriesKind, { share: number; floor: number }> = {
  memory: { share: 0.01, floor: 0 },
  latency: { share: 0.05, floor: 1 },
  backlog: { share: 0.05, floor: 10 },
  rate: { share: 0.05, floor: 0 },
  disk: { share: 0, floor: 0 },
  info: { share: 0, floor: 0 },
  load: { share: 0, floor: 0 },
};

/** The growth per hour that still counts as flat for a quantity of this kind and mean. */
export function allowedGrowth(kind: SeriesKind, mean: number): number {
  const tolerance = TOLERANCE[kind];
  return Math.max(tolerance.share * Math.abs(mean), tolerance.floor);
}

/**
 * The growth per hour of a series after warm-up and whether it is more than noise: `grows` or
 * `falls` only when the slope is beyond two standard errors of itself and beyond the kind's
 * tolerance. Memory that grows over the run but is flat by the same test over its later half, at
 * less than half the run's slope, `levels off`: it is bounded, a leak is not. A leak keeps its slope
 * in the later half (and stays `grows`); growth that merely got noisier, without slowing, stays
 * `grows` too.
 */
export function judgeGrowth(series: Series, warmupHours: number): Growth {
  const points = series.points.filter((p) => p.x >= warmupHours);
  const fit = leastSquares(points);
  const laterHalf = leastSquares(points.slice(Math.floor(points.length / 2)));
  const values = points.map((p) => p.y);
  const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
  const allowed = allowedGrowth(series.kind, mean);
  let verdict: Verdict = 'flat';
  if (fit.slopeStdErr === null) verdict = 'too few samples';
  else if (Math.abs(fit.slope) > 2 * fit.slopeStdErr && Math.abs(fit.slope) > allowed)
    verdict = fit.slope > 0 ? 'grows' : 'falls';
  if (
    verdict === 'grows' &&
    series.kind === 'memory' &&
    laterHalf.slopeStdErr !== null &&
    laterHalf.slope < fit.slope / 2 &&
    (laterHalf.slope <= 2 * laterHalf.slopeStdErr || laterHalf.slope <= allowed)
  )
    verdict = 'levels off';
  return {
    quantity: series.name,
    kind: series.kind,
    unit: series.unit,
    ...(series.perEvent ? { perEvent: series.perEvent } : {}),
    samples: points.length,
    first: values[0] ?? Number.NaN,
    last: values[values.length - 1] ?? Number.NaN,
    mean,
    perHour: fit.slope,
    perHourStdErr: fit.slopeStdErr,
    scatter: fit.residualStdDev,
    percentOfMeanPerHour: mean === 0 ? 0 : (100 * fit.slope) / Math.abs(mean),
    laterHalf:
      laterHalf.slopeStdErr === null
        ? null
        : { perHour: laterHalf.slope, perHourStdErr: laterHalf.slopeStdErr },
    verdict,
  };
}
