/**
 * Polls `check` until it returns a value other than undefined/false. The deadline only bounds a
 * hung pipeline: what a test asserts never depends on how long this took.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs?: number; intervalMs?: number; diagnostics?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${opts.diagnostics ? `\n${opts.diagnostics()}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 100));
  }
}
