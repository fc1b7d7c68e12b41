import { readFileSync } from 'node:fs';

/** The machine's CPU over an interval, in cores, whoever used it. */
export interface HostCpu {
  cores: number;
  busyCores: number;
  iowaitCores: number;
  /** Time the hypervisor gave to other guests while this one wanted to run. */
  stealCores: number;
}

/** The machine's CPU time by state since boot, in clock ticks (the first line of /proc/stat, USER_HZ 100). */
export interface HostCpuCounters {
  atMs: number;
  /** The CPUs /proc/stat counts (its cpuN lines): what the ticks are shared over. */
  cpus: number;
  busy: number;
  iowait: number;
  steal: number;
  total: number;
}

/**
 * The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice.
 * Guest time is counted in user already; busy is everything but idle, iowait and steal.
 */
export function parseProcStat(text: string, atMs: number): HostCpuCounters | null {
  const line = /^cpu\s+([\d\s]+)$/m.exec(text)?.[1];
  if (!line) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .map(Number);
  return {
    atMs,
    cpus: Math.max(1, text.match(/^cpu\d+\s/gm)?.length ?? 1),
    busy: user + nice + system + irq + softirq,
    iowait,
    steal,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

/** The host's counters now; null where there is no /proc/stat (not Linux). */
export function readHostCpu(): HostCpuCounters | null {
  try {
    return parseProcStat(readFileSync('/proc/stat', 'utf8'), Date.now());
  } catch {
    return null;
  }
}

/**
 * The machine's CPU between two reads, in cores: busy (every process, the soak's servers and
 * whatever else runs), waiting on I/O, and stolen by the hypervisor for other guests. The cores are
 * the machine's, as /proc/stat counts them, whatever a cgroup lets this process use.
 */
export function hostCpuBetween(before: HostCpuCounters, now: HostCpuCounters): HostCpu {
  const cores = now.cpus;
  const total = now.total - before.total;
  const share = (a: number, b: number) => (total > 0 ? ((b - a) / total) * cores : 0);
  return {
    cores,
    busyCores: share(before.busy, now.busy),
    iowaitCores: share(before.iowait, now.iowait),
    stealCores: share(before.steal, now.steal),
  };
}
