import { readFileSync } from 'node:fs';
import type { Pool } from '@tributary/db';
/** The part of a Redis client this needs (BullMQ's queue client). */
interface InfoClient {
  info(section: string): Promise<string>;
}

/** CPU seconds used so far by each process of the benchmark (`part|pid`), from /proc (Linux) and Redis' INFO. */
export type CpuSnapshot = { at: number; seconds: Record<string, number> };

const TICKS_PER_SECOND = 100;

function processSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * `parts`: named process ids (senders, receiver); the driver is this process; PostgreSQL is every
 * backend connected to the benchmark's database, by application name; Redis is the server's own
 * count. A backend that ends between two snapshots loses its share (pools keep theirs open).
 */
export async function cpuSnapshot(opts: {
  parts: Record<string, number[]>;
  pool: Pool;
  database: string;
  redis: InfoClient;
}): Promise<CpuSnapshot> {
  const seconds: Record<string, number> = {};
  const add = (name: string, pid: number, s: number | undefined) => {
    if (s !== undefined) seconds[`${name}|${pid}`] = s;
  };
  for (const [name, pids] of Object.entries(opts.parts))
    for (const pid of pids) add(name, pid, processSeconds(pid));
  const own = process.cpuUsage();
  add('bench driver', process.pid, (own.user + own.system) / 1e6);
  const backends = await opts.pool.query<{ pid: number; app: string }>(
    `SELECT pid, coalesce(nullif(application_name, ''), 'other') AS app FROM pg_stat_activity WHERE datname = $1`,
    [opts.database],
  );
  for (const b of backends.rows) add(`postgres (${b.app})`, b.pid, processSeconds(b.pid));
  const info = await opts.redis.info('cpu');
  const user = /used_cpu_user:([\d.]+)/.exec(info)?.[1];
  const sys = /used_cpu_sys:([\d.]+)/.exec(info)?.[1];
  if (user && sys) add('redis', 0, Number(user) + Number(sys));
  return { at: Date.now(), seconds };
}

/**
 * Share of one core used by each part between two snapshots (1 = a whole core). A process that
 * started in between counts from its start; one that ended in between is left out.
 */
export function cpuShares(a: CpuSnapshot, b: CpuSnapshot): Record<string, number> {
  const wall = (b.at - a.at) / 1000;
  const sums: Record<string, number> = {};
  for (const [key, s] of Object.entries(b.seconds)) {
    const part = key.slice(0, key.lastIndexOf('|'));
    sums[part] = (sums[part] ?? 0) + s - (a.seconds[key] ?? 0);
  }
  const out: Record<string, number> = {};
  let total = 0;
  for (const [part, s] of Object.entries(sums).sort((x, y) => y[1] - x[1])) {
    out[part] = Number((s / wall).toFixed(3));
    total += s;
  }
  out['total'] = Number((total / wall).toFixed(3));
  return out;
}
