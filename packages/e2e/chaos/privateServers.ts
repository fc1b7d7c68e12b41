import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, freePort } from '@tributary/testkit/bench';

const run = promisify(execFile);

export type ServerName = 'pg' | 'redis' | 'kafka';
export const SERVER_NAMES: readonly ServerName[] = ['pg', 'redis', 'kafka'];

export interface PrivateServers {
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string;
  /** SIGKILL: no shutdown, nothing flushed (Redis runs without persistence: it comes back empty). */
  kill(name: ServerName): Promise<void>;
  /** Starts it again on the same port and data (`infra/local/up.sh NAME`), retrying until it is up. */
  restart(name: ServerName): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL, Redis and Kafka of the chaos run's own, on free ports under their own data dir,
 * started and restarted by the project's `infra/local` scripts: killing them disturbs nobody
 * else's servers (a test run beside it keeps its own).
 */
export async function startPrivateServers(dataDir: string): Promise<PrivateServers> {
  const env = {
    ...process.env,
    TRIBUTARY_DATA_DIR: dataDir,
    PG_PORT: String(await freePort()),
    REDIS_PORT: String(await freePort()),
    KAFKA_PORT: String(await freePort()),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
    // No append-only file: every Redis kill loses the whole queue, and the outbox relay must
    // rebuild it from PostgreSQL (production runs Redis with persistence; correctness must not
    // depend on it).
    REDIS_APPENDONLY: 'no',
  };
  const up = async (names: readonly string[]) =>
    (await run('bash', [join(REPO_ROOT, 'infra/local/up.sh'), ...names], { env, maxBuffer: 1 << 24 })).stdout;
  const out = await up(SERVER_NAMES);
  const vars = new Map(
    out
      .split('\n')
      .map((l) => l.split('='))
      .filter((p) => p.length >= 2)
      .map(([k, ...v]) => [k!, v.join('=')]),
  );
  const pidFile: Record<ServerName, string> = {
    pg: join(dataDir, 'pg/data/postmaster.pid'),
    redis: join(dataDir, 'redis/redis.pid'),
    kafka: join(dataDir, 'kafka/kafka.pid'),
  };
  return {
    databaseUrl: vars.get('DATABASE_URL')!,
    redisUrl: vars.get('REDIS_URL')!,
    kafkaBrokers: vars.get('KAFKA_BROKERS')!,
    async kill(name) {
      const pid = Number(readFileSync(pidFile[name], 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      while (alive(pid)) await sleep(50);
      // PostgreSQL's backends notice their postmaster's death and exit on their own: wait for them.
      if (name === 'pg') await sleep(1_000);
    },
    async restart(name) {
      for (let attempt = 1; ; attempt++) {
        try {
          await up([name]);
          return;
        } catch (err) {
          if (attempt >= 5) throw err;
          await sleep(1_000 * attempt);
        }
      }
    },
    async stop() {
      await run('bash', [join(REPO_ROOT, 'infra/local/down.sh'), ...SERVER_NAMES], { env }).catch(
        () => undefined,
      );
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
