import { type Growth, allowedGrowth } from './judgeGrowth.ts';
import type { HeapSnapshotGrowth } from './summarizeHeapSnapshot.ts';

/** The name of a service's objects as its heap snapshots counted them, in the growth table. */
const heapObjectsQuantity = (app: string) => `${app} heap objects (snapshots)`;

/**
 * A service's heap objects from its two heap snapshots (the end of warm-up and the end of the run),
 * judged as memory: `grows` or `falls` beyond memory's tolerance (1 % of their size an hour).
 *
 * This is the figure the memory goal reads for a service's live heap when a run has snapshots. The
 * live heap less code (`nodejs_heap_live_data_bytes`) subtracts what V8's code statistics count, and
 * those leave out part of what the JIT keeps beside its code: deoptimization data, relocation info
 * and the weak lists of dependent code (heap snapshots of the projector showed that to be nearly all of
 * its gauge's growth, +1 MiB/h, while its objects grew 35 KiB/h). A snapshot counts every object
 * after a full collection and tells those apart exactly.
 *
 * Two points give no standard error of their own, and what was in flight at each (a batch, bodies
 * being sent, open sockets) counts as held. `scatterBytes` is how far that moves: the scatter about
 * its line of the same service's live heap less code, sampled after a full collection each minute
 * of the same window, which holds the same in-flight work (the JIT's metadata grows smoothly, so it
 * adds to the slope, not to the scatter). A difference of two such points has a standard error of
 * scatter × √2, so the slope per hour one of scatter × √2 / hours; the same rule as every sampled
 * quantity then applies: `grows` or `falls` only beyond two standard errors and beyond 1 %/h.
 * Without a scatter (fewer than three samples) only the tolerance judges.
 */
export function judgeHeapSnapshotGrowth(
  app: string,
  g: HeapSnapshotGrowth & { hours: number },
  scatterBytes: number | null,
): Growth | null {
  if (g.objectBytesBefore === undefined || !(g.hours > 0)) return null; // a run saved before the field
  const first = g.objectBytesBefore;
  const last = first + g.objectBytes;
  const mean = (first + last) / 2;
  const perHour = g.objectBytes / g.hours;
  const perHourStdErr = scatterBytes === null ? null : (scatterBytes * Math.SQRT2) / g.hours;
  const beyond =
    Math.abs(perHour) > allowedGrowth('memory', mean) &&
    (perHourStdErr === null || Math.abs(perHour) > 2 * perHourStdErr);
  return {
    quantity: heapObjectsQuantity(app),
    kind: 'memory',
    unit: 'bytes',
    samples: 2,
    first,
    last,
    mean,
    perHour,
    perHourStdErr,
    scatter: null,
    percentOfMeanPerHour: mean === 0 ? 0 : (100 * perHour) / mean,
    laterHalf: null,
    verdict: !beyond ? 'flat' : perHour > 0 ? 'grows' : 'falls',
  };
}
