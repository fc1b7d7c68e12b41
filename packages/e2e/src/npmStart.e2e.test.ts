import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, getTestSettings, startAnvil, uniqueName } from '@tributary/testkit';
import { describe, expect, it } from 'vitest';
import { type ProcessInfo, descendantsOf, readProcess, readProcesses } from './harness/readProcesses.ts';
import { REPO_ROOT, TEST_RUN_VARIABLE } from '@tributary/testkit/bench';
import { tail } from './harness/startService.ts';
import { waitFor } from './harness/waitFor.ts';

// `npm start` for real (one devnet, on this run's servers, a private anvil and a fresh database),
// stopped the way a user stops it, after a service was SIGKILLed and started again by its
// supervisor and after another service's supervisor was SIGKILLed: npm is back within the services'
// shutdown deadline, and nothing it started is left, found by the processes and process groups seen
// while it ran, by an environment variable every process of it inherits, and by any process started
// since that runs from the clone or has its cwd there and is not another test's (every process a test
// starts carries the run's id, so one whose test process died, still stopping, is known as the run's).
const DEADLINE_MS = 5_000;
// The deadline, the supervisor's second before its SIGKILL, and the slack of a loaded 2-core machine.
const STOPPED_WITHIN_MS = DEADLINE_MS + 4_000;
const CLONE = REPO_ROOT.replace(/\/$/, '');
/** Where the testkit's local servers keep their data (infra/local: TRIBUTARY_DATA_DIR, else the clone's .data). */
const TEST_SERVERS_DIR = process.env['TRIBUTARY_DATA_DIR'] ?? join(CLONE, '.data');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('npm start', () => {
  it('stops every process it started, a restarted service and an orphaned one included, within the shutdown deadline', async () => {
    const settings = getTestSettings();
    const id = uniqueName('npm-start');
    const dataDir = mkdtempSync(join(tmpdir(), 'tributary-npm-start-'));
    const output = join(dataDir, 'npm-start.out');
    const marker = `TRIBUTARY_TEST_STACK=${id}`;
    const ports = {
      HTTP_PORT: await freePort(),
      RECEIVER_PORT: await freePort(),
      FOLLOWER_OPS_PORT: await freePort(),
      PROJECTOR_OPS_PORT: await freePort(),
      MATCHER_OPS_PORT: await freePort(),
      SENDER_OPS_PORT: await freePort(),
      GATEWAY_OPS_PORT: await freePort(),
    };
    const anvil = await startAnvil({ blockTime: 1 });
    const db = await createTestDatabase();
    const stack = createStackWatch({ marker, dataDir, testRun: `${TEST_RUN_VARIABLE}=${settings.runId}` });
    let npm: ChildProcess | undefined;
    const diagnostics = () => `npm start's output (${output}):\n${tail(output, 40)}`;
    try {
      const out = openSync(output, 'a');
      npm = spawn('npm', ['start'], {
        cwd: REPO_ROOT,
        // Its own process group, as a terminal gives a job: Ctrl-C signals that group.
        detached: true,
        stdio: ['ignore', out, out],
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          TRIBUTARY_TEST_STACK: id,
          TRIBUTARY_DATA_DIR: dataDir,
          DEVNET2: 'off',
          NODE_ENV: 'development',
          SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS),
          DATABASE_URL: db.url,
          REDIS_URL: settings.redisUrl,
          KAFKA_BROKERS: settings.kafkaBrokers.join(','),
          RPC_URL: anvil.rpcUrl,
          KAFKA_TOPIC_PREFIX: `${id}.`,
          KAFKA_CLIENT_ID: id,
          KAFKA_GROUP_ID: `${id}-projector`,
          MATCHER_GROUP_ID: `${id}-matcher`,
          WEBHOOK_QUEUE_PREFIX: `${id}-q`,
          ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        },
      });
      closeSync(out);
      const started = npm;
      const exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
      stack.begin(started.pid!);
      await waitFor(
        'npm start to be ready',
        () => {
          if (started.exitCode !== null)
            throw new Error(`npm start exited (${started.exitCode})\n${diagnostics()}`);
          stack.look();
          return readFileSync(output, 'utf8').includes('Tributary is running');
        },
        { timeoutMs: 100_000, intervalMs: 250, diagnostics },
      );

      // A crash: the projector SIGKILLed; its supervisor starts it again after 1 s.
      const killed = stack.service('projector');
      process.kill(killed.pid, 'SIGKILL');
      const restarted = await waitFor(
        'the projector started again and ready',
        async () => {
          stack.look();
          const now = stack.service('projector', { optional: true });
          if (!now || now.pid === killed.pid) return undefined;
          return (await isReady(ports.PROJECTOR_OPS_PORT)) ? now : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250, diagnostics },
      );
      expect(restarted.pid).not.toBe(killed.pid);

      // A supervisor SIGKILLed: its service must not outlive it (its guard stops the group).
      const sender = stack.service('webhook-sender');
      process.kill(sender.ppid, 'SIGKILL');
      await waitFor('the webhook-sender gone with its supervisor', () => !groupAlive(sender.pgid), {
        timeoutMs: STOPPED_WITHIN_MS,
        diagnostics,
      });

      // Stopped as a user does: Ctrl-C (SIGINT to npm's process group), then SIGTERM a second later.
      stack.look();
      const stopAt = Date.now();
      process.kill(-started.pid!, 'SIGINT');
      await sleep(1_000);
      signalGroup(started.pid!, 'SIGTERM');
      await Promise.race([exited, sleep(STOPPED_WITHIN_MS + 10_000)]);
      const tookMs = Date.now() - stopAt;
      const left = stack.leftovers().map(describeProcess);
      expect(
        { npmExited: started.exitCode !== null || started.signalCode !== null, left },
        `left running:\n${left.join('\n')}\n${diagnostics()}`,
      ).toEqual({ npmExited: true, left: [] });
      expect(tookMs).toBeLessThanOrEqual(STOPPED_WITHIN_MS);
      // The supervisors' records of their process groups went with them.
      expect(readdirSync(join(dataDir, 'run'))).toEqual([]);
    } finally {
      for (const p of stack.leftovers()) signalPid(p.pid, 'SIGKILL');
      if (npm?.pid && npm.exitCode === null && npm.signalCode === null) signalGroup(npm.pid, 'SIGKILL');
      await anvil.stop();
      await db.drop().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});

/**
 * What `npm start` (the process `begin` is given) started: every process below it and the groups
 * they lead, seen at each `look`, and afterwards any process that is still one of them.
 */
function createStackWatch(opts: { marker: string; dataDir: string; testRun: string }) {
  let npmPid = 0;
  let since = 0;
  /** Every process of the stack seen, by pid (the first one seen with that pid). */
  const seen = new Map<number, ProcessInfo>();
  const look = () => {
    for (const p of descendantsOf(npmPid, readProcesses())) if (!seen.has(p.pid)) seen.set(p.pid, p);
  };
  return {
    begin(pid: number) {
      npmPid = pid;
      const npm = readProcess(pid);
      if (npm) seen.set(pid, npm);
      since = npm?.startTime ?? 0;
    },
    look,
    /** The running process of a service: the child of its supervisor (supervise.mjs <name> ...) that is not its guard. */
    service(name: string, o: { optional?: boolean } = {}): ProcessInfo {
      const all = readProcesses();
      const below = descendantsOf(npmPid, all);
      const supervisors = new Set(
        below
          .filter((p) => p.cmdline.split(' ')[2] === name && p.cmdline.includes('supervise.mjs'))
          .map((p) => p.pid),
      );
      const found = below.find((p) => supervisors.has(p.ppid) && !p.cmdline.includes('stop-groups.sh'));
      if (!found && !o.optional) throw new Error(`no running ${name} below npm start (pid ${npmPid})`);
      return found as ProcessInfo;
    },
    /**
     * The processes of the stack alive now (not counting those exited but not yet reaped): one seen
     * while it ran (same pid and start time), one in a process group such a process led, one with the
     * stack's variable in its environment, or one started since npm start whose command line or cwd
     * is in the clone or the data dir and that is not a process of this test run: not below vitest,
     * and without the run's id (which a service another test started keeps after that test's
     * process died, while it stops on its own).
     */
    leftovers(): ProcessInfo[] {
      const all = readProcesses().filter((p) => p.state !== 'Z');
      const groups = new Set([...seen.values()].map((p) => p.pgid));
      const ours = testRunProcesses(all);
      const under = (dir: string, path: string) =>
        path === dir || path.startsWith(`${dir}/`) || path.includes(` ${dir}/`);
      const inside = (path: string) => [CLONE, opts.dataDir].some((dir) => under(dir, path));
      // The test run's own servers (the testkit's, in the clone's .data) start processes of their own
      // while npm start runs (a PostgreSQL backend for another test file's connection): not npm start's.
      const testServers = (p: ProcessInfo) =>
        under(TEST_SERVERS_DIR, p.cwd) || under(TEST_SERVERS_DIR, ` ${p.cmdline}`);
      return all.filter(
        (p) =>
          seen.get(p.pid)?.startTime === p.startTime ||
          groups.has(p.pgid) ||
          p.environ.includes(opts.marker) ||
          (p.startTime >= since &&
            !ours.has(p.pid) &&
            !p.environ.includes(opts.testRun) &&
            !testServers(p) &&
            (inside(p.cwd) || inside(` ${p.cmdline}`))),
      );
    },
  };
}

/** vitest's process, its workers and all they started: their cwd is the clone too. */
function testRunProcesses(all: ProcessInfo[]): Set<number> {
  let root = process.pid;
  for (;;) {
    const parent = all.find((p) => p.pid === all.find((q) => q.pid === root)?.ppid);
    if (!parent?.cmdline.includes('vitest')) break;
    root = parent.pid;
  }
  return new Set([root, ...descendantsOf(root, all).map((p) => p.pid)]);
}

function describeProcess(p: ProcessInfo): string {
  return `pid ${p.pid} (parent ${p.ppid}, group ${p.pgid}, ${p.state}) ${p.cmdline} [cwd ${p.cwd}]`;
}

async function isReady(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

function groupAlive(pgid: number): boolean {
  return readProcesses().some((p) => p.pgid === pgid && p.state !== 'Z');
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  signalPid(-pgid, signal);
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
