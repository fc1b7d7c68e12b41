import { Worker } from 'node:worker_threads';

// Runs on a thread of its own: its timer fires whatever the main thread is doing.
const GUARD = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setTimeout(() => {
  writeSync(2, JSON.stringify({
    level: 'fatal',
    time: new Date().toISOString(),
    service: workerData.service,
    pid: process.pid,
    reason: workerData.reason,
    afterMs: workerData.ms,
    msg: 'shutdown still running past its hard deadline (the event loop is blocked): killing the process',
  }) + '\\n');
  process.kill(process.pid, 'SIGKILL');
}, workerData.ms);
`;

/**
 * The last way out of a shutdown: a timer on a thread of its own that SIGKILLs the process after
 * `ms`. The shutdown's own deadline is a timer of the main thread, which never fires while a busy
 * loop (or an endless chain of promises) holds that thread; this one does, so a service asked to
 * stop never lingers. It does not keep an exiting process alive.
 */
export function startHardDeadline(opts: { ms: number; service: string; reason: string }): void {
  const guard = new Worker(GUARD, {
    eval: true,
    workerData: opts,
    // Nothing of the main thread's loaders (tsx): the thread must start while that thread is busy.
    execArgv: [],
    stdout: false,
    stderr: false,
  });
  guard.unref();
}
