/**
 * The sum of one metric's series on a process's /metrics (its ops port) whose labels include
 * `labels`: what that process alone counted. 0 when no series matches yet.
 */
export async function readMetric(
  opsPort: number,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(/^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/gm)) {
    if (m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) sum += Number(m[3]);
  }
  return sum;
}
