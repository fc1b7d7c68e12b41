// What the machine and the database were doing: load average, CPU use of the whole machine and of
// the gateway process (from /proc), PostgreSQL version and settings, buffer-cache hits.
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import type pg from 'pg';

export const load1 = () => Number((loadavg()[0] ?? 0).toFixed(2));

/** Busy and total jiffies of all CPUs together (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busy: total - idle, total };
}

/** utime + stime of one process, in clock ticks (/proc/<pid>/stat). */
function processTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** utime + stime of every live process named `comm` (e.g. the PostgreSQL backends), in clock ticks. */
function ticksOfProcessesNamed(comm: string): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== comm) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += Number(f[11]) + Number(f[12]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return sum;
}

const CLOCK_TICKS = 100;

/** CPU use between start() and the returned function's call: machine busy % and process cores. */
export function cpuMeter(pids: readonly number[]) {
  const ticks = () => pids.reduce((sum, pid) => sum + processTicks(pid), 0);
  const m0 = machineTicks();
  const p0 = ticks();
  const pg0 = ticksOfProcessesNamed('postgres');
  const t0 = Date.now();
  return () => {
    const m1 = machineTicks();
    const seconds = (Date.now() - t0) / 1000;
    return {
      machineBusyPercent: Number((((m1.busy - m0.busy) / (m1.total - m0.total)) * 100).toFixed(1)),
      /** Every gateway process together. */
      gatewayCores: Number(((ticks() - p0) / CLOCK_TICKS / seconds).toFixed(2)),
      /** Every live PostgreSQL process (the gateway's pooled backends stay alive during a phase). */
      postgresCores: Number(((ticksOfProcessesNamed('postgres') - pg0) / CLOCK_TICKS / seconds).toFixed(2)),
    };
  };
}

export function machineDescription() {
  const cpu = cpus();
  return {
    nproc: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
  };
}

const PG_SETTINGS = [
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'random_page_cost',
  'jit',
  'max_connections',
  'max_parallel_workers_per_gather',
  'fsync',
  'synchronous_commit',
  'max_parallel_workers',
  'maintenance_work_mem',
];

export async function postgresDescription(db: pg.Client) {
  const version = (await db.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]?.v;
  const { rows } = await db.query<{ name: string; value: string }>(
    'SELECT name, current_setting(name) AS value FROM pg_settings WHERE name = ANY($1) ORDER BY name',
    [PG_SETTINGS],
  );
  return { version, settings: Object.fromEntries(rows.map((r) => [r.name, r.value])) };
}

/** Buffer-cache counters of the current database (pg_stat_database). */
export async function cacheCounters(db: pg.Client) {
  const { rows } = await db.query<{ hit: string; read: string; temp: string }>(
    `SELECT blks_hit AS hit, blks_read AS read, temp_bytes AS temp
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  return {
    hit: Number(rows[0]?.hit ?? 0),
    read: Number(rows[0]?.read ?? 0),
    temp: Number(rows[0]?.temp ?? 0),
  };
}
