import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The deployables, each started as `node --import tsx apps/<app>/src/main.ts`. */
export type AppName = 'chain-follower' | 'projector' | 'gateway' | 'stream-matcher' | 'webhook-sender';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningService {
  app: AppName;
  /** Its /readyz port: OPS_PORT, or HTTP_PORT for the gateway. */
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
 * when the process exits first or is not ready within `readyTimeoutMs`.
 */
export async function startService(opts: {
  app: AppName;
  port: number;
  env: Record<string, string>;
  logFile: string;
  readyTimeoutMs?: number;
}): Promise<RunningService> {
  const cwd = join(REPO_ROOT, 'apps', opts.app);
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  log.write(`\n===== ${new Date().toISOString()} start ${opts.app} on port ${opts.port}\n`);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd,
    env: { ...baseEnv(), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test worker that dies takes its services with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<ExitInfo>((resolve) => {
    // 'close' comes after the process exited and its pipes drained.
    child.once('close', (code, signal) => {
      process.off('exit', killOnExit);
      log.end(`===== ${new Date().toISOString()} ${opts.app} exited code=${code} signal=${signal}\n`);
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
