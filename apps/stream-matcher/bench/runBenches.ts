import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `pnpm --filter <this app> bench`: runs every `*.bench.ts` here, one after the other, each in its
 * own process (`pnpm bench <name>` runs the ones whose file name contains <name>). Each prints its
 * figures and writes bench/results/<name>.json at the repository root. BENCH_SECONDS shortens
 * the timed ones (default 120).
 */
const dir = fileURLToPath(new URL('./', import.meta.url));
const only = process.argv[2];
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only)))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n== ${script}`);
  // The matcher micro-benchmark reads memory after forced GC; a larger young generation is the
  // setting the matcher runs with (see its start script).
  const flags = ['--expose-gc', '--max-semi-space-size=64', '--import', 'tsx'];
  const r = spawnSync(process.execPath, [...flags, `${dir}${script}`], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`${script} exited with ${r.status ?? r.signal}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
