export interface Fit {
  /** Change of the value per unit of x (per hour, when x is in hours). */
  slope: number;
  intercept: number;
  /** Standard error of the slope; null with fewer than three points (no noise to measure). */
  slopeStdErr: number | null;
  /** The points' scatter about the line (standard deviation of the residuals); null with fewer than three. */
  residualStdDev: number | null;
}

/**
 * The least-squares line through (x, y) points, with the standard error of its slope: a slope
 * within about two standard errors of zero is not told apart from noise.
 */
export function leastSquares(points: readonly { x: number; y: number }[]): Fit {
  const n = points.length;
  if (n === 0) return { slope: 0, intercept: Number.NaN, slopeStdErr: null, residualStdDev: null };
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - meanX) ** 2;
    sxy += (p.x - meanX) * (p.y - meanY);
  }
  if (sxx === 0) return { slope: 0, intercept: meanY, slopeStdErr: null, residualStdDev: null };
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  if (n < 3) return { slope, intercept, slopeStdErr: null, residualStdDev: null };
  const residuals = points.reduce((s, p) => s + (p.y - (intercept + slope * p.x)) ** 2, 0);
  const residualStdDev = Math.sqrt(residuals / (n - 2));
  return { slope, intercept, slopeStdErr: residualStdDev / Math.sqrt(sxx), residualStdDev };
}
