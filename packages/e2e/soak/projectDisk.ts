/** Hours in the 30 days the projection looks ahead. */
const PROJECTION_HOURS = 30 * 24;

export interface DiskProjection {
  /** What the store would hold after 30 days of this load, with its retention (or bound) applied. */
  bytes: number;
  /** The same without retention, every row kept: growth × 30 days (a bound still applies). */
  withoutRetentionBytes: number;
  /** The formula, with its numbers. */
  formula: string;
}

/**
 * The disk a store reaches after 30 days of the soak's load, from its size at the end of the run
 * and its growth per hour after warm-up (a negative growth counts as none):
 *   without retention: size_end + growth/h × (720 h − run_h)
 *   with retention R:  size_end + growth/h × max(0, min(R, 720 h) − run_h), the steady state once
 *                      R has passed: retention then removes per hour what the load adds, so the
 *                      store keeps R hours of growth;
 *   with a bound B (PostgreSQL's WAL by max_wal_size, a compacted topic by its keys): min(the
 *                      above, max(size_end, B)), with or without retention.
 */
export function projectDisk(input: {
  bytesAtEnd: number;
  perHour: number;
  runHours: number;
  retentionHours?: number | null;
  boundBytes?: number | null;
}): DiskProjection {
  const growth = Math.max(0, input.perHour);
  const left = Math.max(0, PROJECTION_HOURS - input.runHours);
  const bound = input.boundBytes ?? null;
  const bounded = (b: number) => (bound === null ? b : Math.min(b, Math.max(input.bytesAtEnd, bound)));
  const withoutRetentionBytes = bounded(input.bytesAtEnd + growth * left);
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(3)} GiB`;
  const base = `${gib(input.bytesAtEnd)} + ${gib(growth)}/h`;
  const retention = input.retentionHours ?? null;
  let bytes = input.bytesAtEnd + growth * left;
  let formula = `${base} × (720 h − ${input.runHours.toFixed(2)} h)`;
  if (retention !== null) {
    const kept = Math.max(0, Math.min(retention, PROJECTION_HOURS) - input.runHours);
    bytes = input.bytesAtEnd + growth * kept;
    formula = `${base} × max(0, min(${retention.toFixed(1)} h retention, 720 h) − ${input.runHours.toFixed(2)} h)`;
  }
  if (bound !== null) {
    bytes = bounded(bytes);
    formula = `min(${formula}, max(size now, bound ${gib(bound)}))`;
  }
  return { bytes, withoutRetentionBytes, formula: `${formula} = ${gib(bytes)}` };
}
