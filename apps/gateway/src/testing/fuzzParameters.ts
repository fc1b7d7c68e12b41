import type { Parameters } from 'fast-check';

/**
 * Bounded, repeatable fuzz runs: a fixed seed (FUZZ_SEED overrides it, FUZZ_RUNS the number of
 * runs) that fast-check prints with the shrunk counterexample when a property fails. On a machine
 * so slow that the runs take over 40 s, the property stops there with the runs it made (a failure
 * found by then still fails it) rather than running into the test timeout.
 */
export function fuzzParameters<T>(numRuns: number): Parameters<T> {
  const seed = Number(process.env['FUZZ_SEED'] ?? 20_261_125);
  const runs = Number(process.env['FUZZ_RUNS'] ?? numRuns);
  return { seed, numRuns: runs, interruptAfterTimeLimit: 40_000, markInterruptAsFailure: false };
}
