/**
 * Session settings of the gateway's PostgreSQL pool, sent at connect time through the libpq
 * `options` parameter (no extra round trip per query). The data queries are short index range
 * scans: JIT compilation (tens of milliseconds, triggered by the planner's cost estimate of a
 * count over a large range) and parallel workers (process start-up, and extra processes competing
 * for the cores under load) cost more than they save.
 */
export const READ_SESSION_SETTINGS: Readonly<Record<string, string>> = {
  jit: 'off',
  max_parallel_workers_per_gather: '0',
  // A page is the first rows of an ordered range scan. The wallet is matched by its address id, a
  // value the planner learns only when the statement runs (an InitPlan), so it estimates every
  // wallet at the average of a few rows and, with block bounds, preferred a bitmap scan of the
  // whole range and a sort: for a busy wallet, every transfer in the range read to return 100.
  // No query of this pool needs a bitmap scan (src/data/queryPlans.test.ts plans every shape).
  enable_bitmapscan: 'off',
};

/**
 * The database URL with `settings` added to its `options` parameter. Options already in the URL
 * come after ours, so an operator's `?options=-c jit=on` still wins.
 */
export function withSessionSettings(
  databaseUrl: string,
  settings: Readonly<Record<string, string>> = READ_SESSION_SETTINGS,
): string {
  const url = new URL(databaseUrl);
  const ours = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const given = url.searchParams.get('options');
  url.searchParams.set('options', given ? `${ours} ${given}` : ours);
  return url.toString();
}
