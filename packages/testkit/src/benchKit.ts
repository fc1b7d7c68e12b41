import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { loadMigrate } from './loadMigrate.ts';
import { REPO_ROOT } from './repoRoot.ts';

/**
 * Shared plumbing of the benchmark scripts (`@tributary/testkit/bench`): a scratch database,
 * child services, percentiles, the machine description and the results file.
 */
export { REPO_ROOT };

const env = (name: string, fallback: string): string => process.env[name] ?? fallback;
export const envNumber = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

export const services = {
  databaseUrl: env('DATABASE_URL', 'postgres://tributary@127.0.0.1:55432/tributary'),
  redisUrl: env('REDIS_URL', 'redis://127.0.0.1:56379'),
  kafkaBrokers: env('KAFKA_BROKERS', '127.0.0.1:59092'),
  rpcUrl: env('RPC_URL', 'http://127.0.0.1:58545'),
};

/** Random bytes as 0x hex (block and transaction hashes of synthetic block events). */
export const randomHex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}` as `0x${string}`;
/** An address as an indexed event topic: left-padded to 32 bytes. */
export const addressTopic = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}` as `0x${string}`;

export const unique = (prefix: string) =>
  `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export async function createBenchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = unique('bench');
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: services.databaseUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(services.databaseUrl);
  url.pathname = `/${name}`;
  const migrate = await loadMigrate();
  if (!migrate) throw new Error('@tributary/db migrate() not found');
  await migrate(url.toString());
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A child `node --import tsx <script>` in `cwd` (launchNode); stdout lines go to `onLine`, stderr is shown. */
export function spawnNode(
  cwd: string,
  script: string,
  childEnv: Record<string, string>,
  onLine?: (line: string) => void,
  args: string[] = [],
): ChildProcess {
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the services (launchNode adds it).
  const child = launchNode(cwd, script, { env: benchEnv(childEnv), stdout: 'pipe', stderr: 'inherit', args });
  return readLines(child, onLine);
}

/**
 * One service of ours from its source, as `spawnNode` starts a script but through launchApp: with
 * the node flags it ships with, a NODE_OPTIONS of `childEnv` (or of this process) after them.
 */
export function spawnApp(
  app: AppName,
  childEnv: Record<string, string>,
  onLine?: (line: string) => void,
): ChildProcess {
  const child = launchApp(app, { env: benchEnv(childEnv), stdout: 'pipe', stderr: 'inherit' });
  return readLines(child, onLine);
}

const benchEnv = (childEnv: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  KAFKAJS_NO_PARTITIONER_WARNING: '1',
  ...childEnv,
});

function readLines(child: ChildProcess, onLine?: (line: string) => void): ChildProcess {
  let buf = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let i = buf.indexOf('\n');
    while (i >= 0) {
      onLine?.(buf.slice(0, i));
      buf = buf.slice(i + 1);
      i = buf.indexOf('\n');
    }
  });
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
export function stopChild(child: ChildProcess, graceMs = 15_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function machine() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadavg1mAtEnd: Number(loadavg()[0]?.toFixed(2)),
    node: process.version,
    note: 'shared 2-core machine: other work (test suites, builds) may run concurrently; the benchmark driver, PostgreSQL, Redis, Kafka and every service process share these cores',
  };
}

export function writeResult(name: string, result: Record<string, unknown>): string {
  const dir = `${REPO_ROOT}bench/results`;
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.json`;
  writeFileSync(
    path,
    `${JSON.stringify({ name, at: new Date().toISOString(), ...result, machine: machine() }, null, 2)}\n`,
  );
  return path;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export { runBenchScripts } from './runBenchScripts.ts';
export { measureMachineSpeed, timeJsWorkloadInChild } from './measureMachineSpeed.ts';
export { cpuSecondsBetween, cpuSnapshot } from './processCpu.ts';
export { type HostCpu, hostCpuBetween } from './readHostCpu.ts';
export { type StartedAnvil, startAnvil } from './startAnvil.ts';
export { freePort } from './freePort.ts';
export { APP_NAMES, type AppName, TEST_RUN_VARIABLE, jemallocPreload, launchApp } from './launchNode.ts';
export { serviceNodeOptions } from './serviceNodeFlags.ts';
export { buildAppBundle } from './buildAppBundle.ts';
import { type AppName, launchApp, launchNode } from './launchNode.ts';
export { type FaultyRpc, startFaultyRpc } from './startFaultyRpc.ts';
export { measureTableBytes } from './measureTableBytes.ts';
