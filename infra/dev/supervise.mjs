// Keeps one service running for `npm start` (crash-only: whatever exits is started again).
//   TRIBUTARY_RUN_DIR=<dir> node infra/dev/supervise.mjs <name> <log file> <command> [args...]
// The command's stdout and stderr are appended to the log file. When it exits, this prints which
// service exited, its exit code or signal and its last error line (the last JSON line with
// level >= 50, else the last line), and writes the same to <log file without .log>.exit (for
// start-all, which waits for the service, to say why it is not up); then starts it again after a
// backoff: 1 s doubling to 30 s, back to 1 s once a run lasted a minute.
//
// Each run of the service is a process group of its own (so that a Ctrl-C in the terminal reaches
// it once, through this, not twice), recorded as <run dir>/<name>/<pgid> while any process of it
// lives. SIGINT, SIGTERM or SIGHUP, or start-all going away (this process's parent changes), stop
// it: SIGTERM to the service's whole group (its graceful shutdown, SHUTDOWN_DEADLINE_MS), SIGKILL
// to what is left of the group 1 s after that deadline; this exits when the group is gone. Should
// this process die without doing so (SIGKILL), a guard it started in a session of its own
// (stop-groups.sh, which waits for its stdin from here to close) stops the recorded groups.
import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [name, logFile, command, ...args] = process.argv.slice(2);
const runDir = process.env.TRIBUTARY_RUN_DIR;
if (!name || !logFile || !command || !runDir) {
  console.error('usage: TRIBUTARY_RUN_DIR=<dir> supervise.mjs <name> <log file> <command> [args...]');
  process.exit(2);
}

const MIN_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
const HEALTHY_RUN_MS = 60_000;
// The services' own shutdown deadline (packages/config), after which they force their exit.
const DEADLINE_MS = Number(process.env.SHUTDOWN_DEADLINE_MS) || 10_000;
const KILL_AFTER_MS = DEADLINE_MS + 1_000;
// What a service leaves in its group when it exits (tsx's esbuild exits when its parent has) gets
// this long to go before it is killed, so that no leftover holds a port the next run needs.
const LEFTOVER_GRACE_MS = 1_000;
// How long a stop waits for the guard to see its stdin close and find nothing to stop.
const GUARD_EXIT_MS = 2_000;
// What the exit codes of packages/runtime's shutdown mean.
const EXIT_MEANING = {
  0: 'stopped cleanly',
  70: 'its shutdown deadline passed',
  75: 'a fatal error a restart may clear',
  78: 'a fatal error a restart alone will not clear (see its log)',
  130: 'a second stop signal',
};

const say = (line) => process.stderr.write(`[start] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const recordDir = join(runDir, name);
const exitFile = `${logFile.replace(/\.log$/, '')}.exit`;
mkdirSync(recordDir, { recursive: true });
// This process holds the write end of the guard's stdin, which the kernel closes when it dies.
const guard = spawn(
  'bash',
  [fileURLToPath(new URL('stop-groups.sh', import.meta.url)), '--when-stdin-closes', recordDir],
  { detached: true, stdio: ['pipe', 'ignore', 'inherit'] },
);
const guardGone = new Promise((resolve) => {
  guard.once('exit', resolve);
  guard.once('error', (err) => {
    say(`${name}: could not start its guard (stop-groups.sh): ${err.message}`);
    resolve();
  });
});
/**
 * Exits once the guard is gone too: closing its stdin tells it this stopped its service itself (it
 * finds no record left), so that whoever waits for this process (start-all, then npm) returns with
 * nothing of the service running, the guard included.
 */
async function exitWithGuard(code) {
  guard.stdin?.end();
  await Promise.race([guardGone, sleep(GUARD_EXIT_MS)]);
  process.exit(code);
}

let child = null;
/** The process group of the current run (its first process's pid) until it is gone. */
let group = null;
let stopping = false;
let killedAtDeadline = false;
let delayMs = MIN_DELAY_MS;
let restarts = 0;
let wake = null;

function run() {
  return new Promise((resolve) => {
    const offset = sizeOf(logFile);
    const out = openSync(logFile, 'a');
    const started = Date.now();
    child = spawn(command, args, { stdio: ['ignore', out, out], detached: true });
    closeSync(out);
    if (child.pid !== undefined) {
      group = child.pid;
      writeFileSync(join(recordDir, String(group)), `${name}\n`);
    }
    child.once('error', (err) => {
      say(`${name}: could not start ${command}: ${err.message}`);
    });
    child.once('close', (code, signal) => {
      child = null;
      resolve({ code, signal, ms: Date.now() - started, offset });
    });
  });
}

/** Sends `signal` to every process of the group; false when none is left. */
function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Whether a process of the group still runs. One that exited but is not reaped yet (a zombie) does
 * not count: once its parent is gone only PID 1 reaps it, and a PID 1 that reaps late or never (a
 * container's without an init) would otherwise keep every wait for the group going to its deadline.
 */
function groupRunning(pgid) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command name (in parentheses, which may hold anything): state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/** Once the service's first process has exited: the rest of its group goes, then its record. */
async function endGroup() {
  if (group === null) return;
  const until = Date.now() + LEFTOVER_GRACE_MS;
  while (groupRunning(group) && Date.now() < until) await sleep(50);
  if (groupRunning(group) && signalGroup(group, 'SIGKILL')) {
    if (!killedAtDeadline) say(`${name}: killed what its run left in process group ${group}`);
    for (let i = 0; i < 100 && groupRunning(group); i++) await sleep(20);
  }
  rmSync(join(recordDir, String(group)), { force: true });
  group = null;
}

function stop(why) {
  if (stopping) return;
  stopping = true;
  if (group === null) {
    void exitWithGuard(why === 'SIGINT' ? 130 : 0);
    return;
  }
  signalGroup(group, 'SIGTERM');
  setTimeout(() => {
    if (group !== null && groupRunning(group) && signalGroup(group, 'SIGKILL')) {
      killedAtDeadline = true;
      say(`${name}: still running ${KILL_AFTER_MS / 1000} s after SIGTERM; killed process group ${group}`);
    }
  }, KILL_AFTER_MS);
  wake?.();
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// The terminal went away: nothing would stop the service later.
process.on('SIGHUP', () => stop('SIGHUP'));
// start-all gone without stopping this (SIGKILLed): this process's parent is then another one.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent || stopping) return;
  say(`${name}: the npm start that ran it is gone; stopping ${name}`);
  stop('parent gone');
}, 1_000).unref();

function sizeOf(file) {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** "last error: ..." (or "last log line: ...") of the run that began at `offset` (its last 256 KiB). */
function lastErrorLine(file, offset) {
  const end = sizeOf(file);
  const start = Math.max(offset, end - 256 * 1024);
  if (end <= start) return 'logged nothing';
  const buf = Buffer.alloc(end - start);
  const fd = openSync(file, 'r');
  readSync(fd, buf, 0, buf.length, start);
  closeSync(fd);
  const lines = buf
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const entry = parseJson(lines[i]);
    if (entry && levelOf(entry) >= 50) return `last error: ${describe(entry)}`;
  }
  const last = lines[lines.length - 1];
  if (!last) return 'logged nothing';
  const entry = parseJson(last);
  return `last log line: ${entry ? describe(entry) : last.slice(0, 500)}`;
}

function parseJson(line) {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** pino's level, logged as a number or (the services' formatter) as its label. */
function levelOf(entry) {
  return typeof entry.level === 'number' ? entry.level : (LEVELS[entry.level] ?? 0);
}

/** A pino line as "level msg: err.type: err.message". */
function describe(entry) {
  const err = entry.err && typeof entry.err === 'object' ? entry.err : null;
  const cause = err ? `: ${err.type ?? 'Error'}: ${err.message ?? ''}` : '';
  return `${entry.level} ${entry.msg ?? ''}${cause}`.slice(0, 500);
}

async function superviseForever() {
  for (;;) {
    const exit = await run();
    await endGroup();
    if (stopping) await exitWithGuard(exit.code ?? 0);
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    const meaning = exit.code !== null && EXIT_MEANING[exit.code] ? `, ${EXIT_MEANING[exit.code]}` : '';
    if (exit.ms >= HEALTHY_RUN_MS) delayMs = MIN_DELAY_MS;
    restarts += 1;
    const exited = `exited (${how}${meaning}) after ${(exit.ms / 1000).toFixed(1)} s`;
    const lastError = lastErrorLine(logFile, exit.offset);
    writeFileSync(exitFile, `${exited}; ${lastError}\n`);
    say(`${name} ${exited}`);
    say(`${name} ${lastError}`);
    say(`${name}: restart ${restarts} in ${delayMs / 1000} s (log ${logFile})`);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
    if (stopping) await exitWithGuard(0);
    delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
  }
}

await superviseForever();
