import { readFileSync, readdirSync } from 'node:fs';
import { type HostCpuCounters, readHostCpu } from './readHostCpu.ts';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux build Node runs on

/** CPU time (user + system, seconds) of every process on the machine at one moment, from /proc. */
export interface CpuSnapshot {
  /** Per process: its command name and CPU seconds, its own plus that of its exited, reaped children. */
  processes: Map<number, { comm: string; seconds: number }>;
  /** The whole machine: busy and idle seconds summed over every core (/proc/stat). */
  busySeconds: number;
  idleSeconds: number;
  /** The machine's counters these were taken from, for hostCpuBetween (null without /proc/stat). */
  host: HostCpuCounters | null;
}

export function cpuSnapshot(): CpuSnapshot {
  const processes = new Map<number, { comm: string; seconds: number }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; the last ')' ends it.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const f = stat.slice(close + 2).split(' ');
    // Fields 14-17 of proc(5) (utime, stime, cutime, cstime) are 11-14 after the comm.
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    processes.set(pid, {
      comm: comm === 'postgres' ? postgresRole(pid) : comm,
      seconds: ticks / TICKS_PER_SECOND,
    });
  }
  const cpu = readHostCpu();
  // Busy here counts stolen time too (this guest wanted the CPU); idle counts I/O wait.
  const busy = cpu ? cpu.busy + cpu.steal : 0;
  const idle = cpu ? cpu.total - busy : 0;
  return {
    processes,
    busySeconds: busy / TICKS_PER_SECOND,
    idleSeconds: idle / TICKS_PER_SECOND,
    host: cpu,
  };
}

/**
 * A PostgreSQL process by its role: `postgres: backend` for client sessions, `postgres: checkpointer`
 * and the like for the server's own workers, `postgres: postmaster` for the server itself (its
 * figure holds the children it reaped: backends that closed and autovacuum workers).
 */
function postgresRole(pid: number): string {
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // exited meanwhile
  }
  if (!cmdline.startsWith('postgres: ')) return 'postgres: postmaster';
  const title = cmdline.slice('postgres: '.length).trim();
  const worker = ['checkpointer', 'background writer', 'walwriter', 'autovacuum', 'logical replication'].find(
    (w) => title.startsWith(w),
  );
  return `postgres: ${worker ?? 'backend'}`;
}

/**
 * CPU seconds spent between two snapshots, grouped: a process whose pid is in `named` counts under
 * that name, any other under its command name (PostgreSQL's under their role, see postgresRole). Groups under 0.05 s are left out.
 */
export function cpuSecondsBetween(
  before: CpuSnapshot,
  after: CpuSnapshot,
  named: Record<string, number | undefined> = {},
): { byProcess: Record<string, number>; machineBusySeconds: number; machineIdleSeconds: number } {
  const names = new Map<number, string>();
  for (const [name, pid] of Object.entries(named)) if (pid !== undefined) names.set(pid, name);
  const groups = new Map<string, number>();
  for (const [pid, p] of after.processes) {
    const spent = p.seconds - (before.processes.get(pid)?.seconds ?? 0);
    if (spent <= 0) continue;
    const group = names.get(pid) ?? p.comm;
    groups.set(group, (groups.get(group) ?? 0) + spent);
  }
  const byProcess = Object.fromEntries(
    [...groups]
      .filter(([, s]) => s >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([g, s]) => [g, Math.round(s * 10) / 10]),
  );
  return {
    byProcess,
    machineBusySeconds: Math.round((after.busySeconds - before.busySeconds) * 10) / 10,
    machineIdleSeconds: Math.round((after.idleSeconds - before.idleSeconds) * 10) / 10,
  };
}
