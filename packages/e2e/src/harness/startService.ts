import type { ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { type AppName, launchApp } from '@tributary/testkit/bench';

/** Every service this process started and that has not exited yet. */
const alive = new Set<ChildProcess>();

/** SIGKILLs every service this process started that is still running (a test that failed before its own cleanup). */
export function killRunningServices(): void {
  for (const child of alive) child.kill('SIGKILL');
}

// A test file that ends leaves none of its services behind, whatever its own hooks did. (vitest can
// only be imported inside its runner: a script may use this module too.)
if (process.env['VITEST']) {
  const { afterAll } = await import('vitest');
  afterAll(killRunningServices);
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningService {
  app: AppName;
  /** Its ops port (OPS_PORT): /healthz, /readyz and /metrics. */
  port: number;
  pid: number;
  logFile: string;
  exited: Promise<ExitInfo>;
  /** SIGTERM (graceful shutdown), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<ExitInfo>;
  /** SIGKILL: a crash, nothing flushed, no offsets committed. */
  kill(): Promise<ExitInfo>;
}

/**
 * Spawns one app with exactly the given environment (on top of PATH and HOME), appends its stdout
 * and stderr to `logFile`, and resolves once GET /readyz answers 200. Fails with the log's tail
 * when the process exits first or is not ready within `readyTimeoutMs`. The app never outlives
 * this process: it stops when its stdin pipe from here closes (exitWithParent.mjs), which the
 * kernel does when this process dies, even by SIGKILL.
 */
export async function startService(opts: {
  app: AppName;
  port: number;
  env: Record<string, string>;
  logFile: string;
  readyTimeoutMs?: number;
}): Promise<RunningService> {
  appendFileSync(
    opts.logFile,
    `\n===== ${new Date().toISOString()} start ${opts.app} on port ${opts.port}\n`,
  );
  // The app writes its log itself: its last lines are kept even when this process died first.
  const log = openSync(opts.logFile, 'a');
  const child: ChildProcess = launchApp(opts.app, {
    env: { ...baseEnv(), ...opts.env },
    stdout: log,
    stderr: log,
  });
  closeSync(log);
  alive.add(child);
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('close', (code, signal) => {
      alive.delete(child);
      appendFileSync(
        opts.logFile,
        `===== ${new Date().toISOString()} ${opts.app} exited code=${code} signal=${signal}\n`,
      );
      resolve({ code, signal });
    });
  });
  let exitInfo: ExitInfo | undefined;
  void exited.then((info) => {
    exitInfo = info;
  });

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exitInfo) {
      throw new Error(
        `${opts.app} exited (code ${exitInfo.code}, signal ${exitInfo.signal}) before it was ready; ` +
          `log ${opts.logFile}:\n${tail(opts.logFile)}`,
      );
    }
    if (await isReady(opts.port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(
        `${opts.app} not ready on port ${opts.port}; log ${opts.logFile}:\n${tail(opts.logFile)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const signal = async (sig: NodeJS.Signals, graceMs: number) => {
    if (exitInfo) return exitInfo;
    child.kill(sig);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const info = await exited;
    clearTimeout(timer);
    return info;
  };
  return {
    app: opts.app,
    port: opts.port,
    pid: child.pid!,
    logFile: opts.logFile,
    exited,
    stop: (graceMs = 15_000) => signal('SIGTERM', graceMs),
    kill: () => signal('SIGKILL', 5_000),
  };
}

async function isReady(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Only what a process needs to run: the apps' own settings come from `env`, never from this process. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  const env: Record<string, string> = {};
  for (const name of keep) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The last lines of a log file, for failure messages. */
export function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
