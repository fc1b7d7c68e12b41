import type { HeapSnapshotGrowth } from './summarizeHeapSnapshot.ts';

const kib = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / 1024).toFixed(1)} KiB`;

/**
 * The heap snapshots' report: per service, what its heap gained between the snapshot at the end of
 * warm-up and the one at the end of the run, per hour, split into the JIT's code, V8's weak lists and the
 * application's objects, and the kinds that changed most.
 */
export function formatHeapGrowth(
  growth: Partial<Record<string, HeapSnapshotGrowth & { hours: number }>>,
): string {
  const lines = [
    'Heap snapshots, the end of warm-up against the end of the run (per hour; self sizes of what each snapshot reaches):',
  ];
  for (const [app, g] of Object.entries(growth)) {
    if (!g) continue;
    const h = g.hours;
    lines.push(
      `  ${app} (${(h * 60).toFixed(0)} min apart): all ${kib(g.totalBytes / h)}/h = JIT code ${kib(g.jitBytes / h)}/h` +
        ` + V8 weak lists ${kib(g.weakListBytes / h)}/h + objects ${kib(g.objectBytes / h)}/h`,
    );
    const top = g.top
      .slice(0, 6)
      .map((t) => `${t.kind || '(unnamed)'} ${kib(t.bytes)} (${t.count >= 0 ? '+' : ''}${t.count})`);
    lines.push(`    most changed: ${top.join('; ')}`);
  }
  return lines.join('\n');
}
