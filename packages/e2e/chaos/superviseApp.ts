import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { type AppName, launchApp } from '@tributary/testkit/bench';

export interface SupervisedApp {
  /** SIGKILL the running process; the supervisor starts it again after its backoff. */
  kill(): void;
  /** SIGKILL, and no restart until release(): the service stays away. */
  holdDown(): void;
  /** Ends holdDown(): the supervisor starts it again. */
  release(): void;
  /** SIGSTOP: the process stays, frozen (a paused VM, a stuck host); thaw() continues it. */
  freeze(): void;
  thaw(): void;
  /** Stops for good: SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Exits that were not asked for by kill() (crashes, watchdog exits), with their codes. */
  readonly crashes: { code: number | null; signal: string | null; at: number }[];
  /** When the process last started. */
  startedAt(): number;
  /** The running process's id (undefined while it is down). */
  pid(): number | undefined;
}

/**
 * What `npm start`'s supervisor and compose's restart policy do for a service: start it again
 * whenever it exits (0.5 s, doubling to 5 s while it keeps dying within 30 s). Its output is
 * appended to `logFile`. Children die with this process.
 */
export function superviseApp(opts: {
  app: AppName;
  env: Record<string, string>;
  logFile: string;
}): SupervisedApp {
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  // A line a child writes after the end (its output still draining) is lost, never the run.
  log.on('error', () => undefined);
  const crashes: SupervisedApp['crashes'] = [];
  let child: ChildProcess | undefined;
  // The running child's output is all read (its pipes closed), which comes after its exit.
  let drained: Promise<void> = Promise.resolve();
  let stopped = false;
  let held = false;
  let frozen = false;
  let killedByUs = false;
  let backoff = 500;
  let started = Date.now();
  const killOnExit = () => {
    if (frozen) child?.kill('SIGCONT');
    child?.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  function start() {
    started = Date.now();
    killedByUs = false;
    log.write(`\n===== ${new Date().toISOString()} start ${opts.app}\n`);
    const c = launchApp(opts.app, { env: { ...process.env, ...opts.env }, stdout: 'pipe', stderr: 'pipe' });
    child = c;
    drained = new Promise((resolve) => c.once('close', () => resolve()));
    c.stdout?.pipe(log, { end: false });
    c.stderr?.pipe(log, { end: false });
    c.once('exit', (code, signal) => {
      log.write(`===== ${new Date().toISOString()} ${opts.app} exited code=${code} signal=${signal}\n`);
      if (!killedByUs && !stopped) crashes.push({ code, signal, at: Date.now() });
      if (stopped || held) return;
      backoff = Date.now() - started > 30_000 ? 500 : Math.min(5_000, backoff * 2);
      setTimeout(
        () => {
          if (!stopped) start();
        },
        killedByUs ? 500 : backoff,
      );
    });
  }
  start();

  return {
    crashes,
    startedAt: () => started,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    kill() {
      killedByUs = true;
      child?.kill('SIGKILL');
    },
    holdDown() {
      held = true;
      killedByUs = true;
      child?.kill('SIGKILL');
    },
    release() {
      if (!held) return;
      held = false;
      if (!stopped && child && (child.exitCode !== null || child.signalCode !== null)) start();
    },
    freeze() {
      frozen = true;
      child?.kill('SIGSTOP');
    },
    thaw() {
      frozen = false;
      child?.kill('SIGCONT');
    },
    async stop(graceMs = 15_000) {
      stopped = true;
      process.off('exit', killOnExit);
      const c = child;
      if (frozen) c?.kill('SIGCONT');
      if (c && c.exitCode === null && c.signalCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      await Promise.race([drained, new Promise((r) => setTimeout(r, 5_000))]);
      log.end();
    },
  };
}
