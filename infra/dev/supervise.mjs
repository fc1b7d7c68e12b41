// Keeps one service running for `npm start` (crash-only: whatever exits is started again).
//   node infra/dev/supervise.mjs <name> <log file> <command> [args...]
// The command's stdout and stderr are appended to the log file. When it exits, this prints which
// service exited, its exit code or signal and its last error line (the last JSON line with
// level >= 50, else the last line), then starts it again after a backoff: 1 s doubling to 30 s,
// back to 1 s once a run lasted a minute. SIGINT/SIGTERM stop it: the service gets one SIGTERM
// (its graceful shutdown with a deadline) and this exits when the service has.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';

const [name, logFile, command, ...args] = process.argv.slice(2);
if (!name || !logFile || !command) {
  console.error('usage: supervise.mjs <name> <log file> <command> [args...]');
  process.exit(2);
}

const MIN_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
const HEALTHY_RUN_MS = 60_000;
// What the exit codes of packages/runtime's shutdown mean.
const EXIT_MEANING = {
  0: 'stopped cleanly',
  70: 'its shutdown deadline passed',
  75: 'a fatal error a restart may clear',
  78: 'a fatal error a restart alone will not clear (see its log)',
  130: 'a second stop signal',
};

const say = (line) => process.stderr.write(`[start] ${line}\n`);
let child = null;
let stopping = false;
let delayMs = MIN_DELAY_MS;
let restarts = 0;
let wake = null;

function run() {
  return new Promise((resolve) => {
    const offset = sizeOf(logFile);
    const out = openSync(logFile, 'a');
    const started = Date.now();
    // Its own process group: a Ctrl-C in the terminal reaches it once, through us, not twice.
    child = spawn(command, args, { stdio: ['ignore', out, out], detached: true });
    closeSync(out);
    child.once('error', (err) => {
      say(`${name}: could not start ${command}: ${err.message}`);
    });
    child.once('close', (code, signal) => {
      child = null;
      resolve({ code, signal, ms: Date.now() - started, offset });
    });
  });
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  if (child) child.kill('SIGTERM');
  else process.exit(signal === 'SIGINT' ? 130 : 0);
  wake?.();
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

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
    if (stopping) process.exit(exit.code ?? 0);
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    const meaning = exit.code !== null && EXIT_MEANING[exit.code] ? `, ${EXIT_MEANING[exit.code]}` : '';
    if (exit.ms >= HEALTHY_RUN_MS) delayMs = MIN_DELAY_MS;
    restarts += 1;
    say(`${name} exited (${how}${meaning}) after ${(exit.ms / 1000).toFixed(1)} s`);
    say(`${name} ${lastErrorLine(logFile, exit.offset)}`);
    say(`${name}: restart ${restarts} in ${delayMs / 1000} s (log ${logFile})`);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
    if (stopping) process.exit(0);
    delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
  }
}

await superviseForever();
