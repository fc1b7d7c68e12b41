import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, freePort } from '@tributary/testkit/bench';

const run = promisify(execFile);

const PORT_VARS = [
  'KAFKA3_PORT_1',
  'KAFKA3_PORT_2',
  'KAFKA3_PORT_3',
  'KAFKA3_CONTROLLER_PORT_1',
  'KAFKA3_CONTROLLER_PORT_2',
  'KAFKA3_CONTROLLER_PORT_3',
  'REDIS_HA_PORT_1',
  'REDIS_HA_PORT_2',
  'SENTINEL_PORT_1',
  'SENTINEL_PORT_2',
  'SENTINEL_PORT_3',
];

export interface TopologyServers {
  /** The services' variables: KAFKA_BROKERS (three), KAFKA_REPLICATION_FACTOR, REDIS_SENTINELS, ... */
  env: Record<string, string>;
  /** SIGKILL of Kafka node `id` (1-3): no shutdown, its partitions' leadership moves. */
  killBroker(id: number): Promise<void>;
  /** SIGKILL of the Redis master the sentinels name now; returns its port. */
  killRedisMaster(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The production topologies of RELIABILITY.md on this machine, of their own (a temporary data dir,
 * free ports): three Kafka brokers and Redis with a replica under three sentinels, started and
 * stopped by the project's `infra/local/up.sh kafka3 sentinel`.
 */
export async function startTopologyServers(dataDir: string): Promise<TopologyServers> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TRIBUTARY_DATA_DIR: dataDir,
  };
  for (const name of PORT_VARS) env[name] = String(await freePort());
  const script = (name: string) => join(REPO_ROOT, 'infra/local', name);
  const { stdout } = await run('bash', [script('up.sh'), 'kafka3', 'sentinel'], { env, maxBuffer: 1 << 24 });
  const vars = Object.fromEntries(
    stdout
      .split('\n')
      .map((l) => l.split('='))
      .filter((p) => p.length >= 2)
      .map(([k, ...v]) => [k as string, v.join('=')]),
  );
  const kill = async (pidFile: string) => {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  };
  return {
    env: vars,
    killBroker: (id) => kill(join(dataDir, 'kafka3', String(id), 'kafka.pid')),
    async killRedisMaster() {
      const port = await masterPort(
        ['SENTINEL_PORT_1', 'SENTINEL_PORT_2', 'SENTINEL_PORT_3'].map((v) => env[v] as string),
        vars['REDIS_SENTINEL_NAME'] ?? 'mymaster',
      );
      const n = port === Number(env['REDIS_HA_PORT_1']) ? 1 : 2;
      await kill(join(dataDir, 'sentinel', `redis-${n}`, 'redis.pid'));
      return port;
    },
    async stop() {
      await run('bash', [script('down.sh'), 'kafka3', 'sentinel'], { env }).catch(() => undefined);
    },
  };
}

/** The master's port, as the first sentinel that answers says. */
async function masterPort(sentinelPorts: string[], name: string): Promise<number> {
  let last: unknown;
  for (const port of sentinelPorts) {
    try {
      const { stdout } = await run('redis-cli', ['-p', port, 'sentinel', 'get-master-addr-by-name', name]);
      const master = Number(stdout.trim().split('\n')[1]);
      if (master > 0) return master;
    } catch (err) {
      last = err;
    }
  }
  throw new Error(`no sentinel named the master ${name}: ${String(last)}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
