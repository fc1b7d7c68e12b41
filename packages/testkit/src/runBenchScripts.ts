import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Runs every `*.bench.ts` of a folder, one after the other, each in its own process (`only` keeps
 * the ones whose file name contains it). Each prints its figures and writes
 * bench/results/<name>.json at the repository root. Exits non-zero when a script failed to run.
 */
export function runBenchScripts(folder: URL, only?: string): never {
  const dir = fileURLToPath(folder);
  const scripts = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only)))
    .sort();
  let failed = 0;
  for (const script of scripts) {
    console.log(`\n== ${script}`);
    // Memory is read after forced GC; a larger young generation is the setting the services run with.
    const flags = ['--expose-gc', '--max-semi-space-size=64', '--import', 'tsx'];
    const r = spawnSync(process.execPath, [...flags, `${dir}${script}`], { stdio: 'inherit' });
    if (r.status !== 0) {
      failed++;
      console.error(`${script} exited with ${r.status ?? r.signal}`);
    }
  }
  process.exit(failed > 0 ? 1 : 0);
}
