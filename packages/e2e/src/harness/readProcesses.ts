import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** One process as Linux's /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** R, S, D, Z (not reaped yet), ... */
  state: string;
  /** Clock ticks after boot: with the pid, names one process even when pids are reused. */
  startTime: number;
  cmdline: string;
  /** Empty when it cannot be read (another user's process, or one that just exited). */
  cwd: string;
  /** Its environment as it was started, `NAME=value` entries. */
  environ: string[];
}

/** Every process of the machine that can be read now (those that exit meanwhile are left out). */
export function readProcesses(): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) all.push(info);
  }
  return all;
}

export function readProcess(pid: number): ProcessInfo | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let cwd = '';
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // not ours, or gone
  }
  return {
    pid,
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: Number(fields[19]),
    cmdline: (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim(),
    cwd,
    environ: (read(`/proc/${pid}/environ`) ?? '').split('\0').filter(Boolean),
  };
}

/** The processes below `pid` in `all` (children, their children, ...). */
export function descendantsOf(pid: number, all: ProcessInfo[]): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const children = all.filter((p) => parents.has(p.ppid));
    found.push(...children);
    parents = new Set(children.map((p) => p.pid));
  }
  return found;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
