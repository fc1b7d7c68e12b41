import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppName } from '@tributary/testkit/bench';
import type { SupervisedApp } from '../chaos/superviseApp.ts';

/** The signal the services are started with (`--heapsnapshot-signal`) when the soak takes snapshots. */
const SIGNAL = 'SIGUSR2';

/** The NODE_OPTIONS that make a service write a heap snapshot into `dir` on SIGNAL. */
export function heapSnapshotNodeOptions(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return `--heapsnapshot-signal=${SIGNAL} --diagnostic-dir=${dir}`;
}

/**
 * Has each service write a heap snapshot (it was started with heapSnapshotNodeOptions(dirOf(app))),
 * one service at a time, and returns each one's file. V8 writes a snapshot on the main thread, so
 * the file is whole once the service answers its ops port again. A service that is down, or whose
 * snapshot does not appear within `timeoutMs`, is left out (and logged).
 */
export async function takeHeapSnapshots(o: {
  apps: ReadonlyMap<AppName, SupervisedApp>;
  opsUrls: ReadonlyMap<AppName, string>;
  dirOf: (app: AppName) => string;
  log: (line: string) => void;
  timeoutMs?: number;
}): Promise<Partial<Record<AppName, string>>> {
  const timeoutMs = o.timeoutMs ?? 120_000;
  const files: Partial<Record<AppName, string>> = {};
  for (const [app, supervised] of o.apps) {
    const pid = supervised.pid();
    if (pid === undefined) {
      o.log(`heap snapshot of ${app}: not running, none taken`);
      continue;
    }
    const dir = o.dirOf(app);
    const before = new Set(readdirSync(dir));
    process.kill(pid, SIGNAL);
    const deadline = Date.now() + timeoutMs;
    let file: string | undefined;
    while (!file && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      const written = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
      if (written && (await answers(o.opsUrls.get(app)!))) file = join(dir, written);
    }
    if (file) files[app] = file;
    else o.log(`heap snapshot of ${app}: none written within ${timeoutMs} ms`);
  }
  return files;
}

async function answers(opsUrl: string): Promise<boolean> {
  return fetch(`${opsUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })
    .then(() => true)
    .catch(() => false);
}
