import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CreatedApiKey, type Pool, createAccountWithKey, createPool } from '@tributary/db';
import {
  type StartedAnvil,
  type TestDatabase,
  createTestDatabase,
  freePort,
  getTestSettings,
  startAnvil,
  uniqueName,
} from '@tributary/testkit';
import { type AppName, type ExitInfo, type RunningService, startService, tail } from './startService.ts';

export interface Pipeline {
  anvil: StartedAnvil;
  db: TestDatabase;
  /** A pool on the pipeline's database, for waiting on progress and comparing tables. */
  pool: Pool;
  /** A key of the account "e2e" (its webhook secret too). */
  apiKey: CreatedApiKey;
  gatewayUrl: string;
  /** Kafka topic prefix of this pipeline (`<prefix>evm.blocks.v1`). */
  topicPrefix: string;
  /** The Kafka consumer groups of the projector and the matcher. */
  groupIds: { projector: string; matcher: string };
  logDir: string;
  /** Starts (or restarts) one app with its fixed port and settings, plus `extraEnv`. */
  start(app: AppName, extraEnv?: Record<string, string>): Promise<RunningService>;
  stop(app: AppName): Promise<ExitInfo>;
  kill(app: AppName): Promise<ExitInfo>;
  running(app: AppName): RunningService | undefined;
  /** The tail of every app's log, for a failed test's report. */
  diagnostics(): string;
  close(): Promise<void>;
}

/**
 * One isolated deployment: a private anvil, a fresh migrated database, a unique Kafka topic prefix,
 * consumer groups and BullMQ prefix, and the given apps as child processes on free ports (started
 * together; each waits for its /readyz). Logs go to one file per app under `logDir`.
 */
export async function startPipeline(opts: {
  name: string;
  apps: AppName[];
  env?: Partial<Record<AppName, Record<string, string>>>;
  anvil?: StartedAnvil;
  /**
   * More chains, each followed by one more chain-follower (started with the apps, with the
   * chain-follower's settings): the caller owns their nodes.
   */
  moreChains?: { chainId: number; rpcUrl: string }[];
}): Promise<Pipeline> {
  const settings = getTestSettings();
  const anvil = opts.anvil ?? (await startAnvil());
  const db = await createTestDatabase();
  const pool = createPool({ connectionString: db.url, max: 4, application: 'e2e' });
  // Dropping the database at the end terminates connections that pool.end() is still closing.
  pool.on('error', () => {});
  const apiKey = await createAccountWithKey(pool, { accountName: 'e2e' });
  const id = uniqueName(opts.name);
  const logDir = join(process.env['E2E_LOG_DIR'] ?? join(tmpdir(), 'tributary-e2e'), id);
  mkdirSync(logDir, { recursive: true });
  const topicPrefix = `${id}.`;
  const groupIds = { projector: `${id}-projector`, matcher: `${id}-matcher` };
  const apps: AppName[] = ['chain-follower', 'projector', 'gateway', 'stream-matcher', 'webhook-sender'];
  const ports = new Map<AppName, number>();
  // Each app's ops port (the gateway's too: its metrics and detailed readiness are there), and the gateway's API port.
  for (const app of apps) ports.set(app, await freePort());
  const gatewayHttpPort = await freePort();

  const common: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['E2E_SERVICE_LOG_LEVEL'] ?? 'info',
    SHUTDOWN_DEADLINE_MS: '10000',
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: settings.redisUrl,
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: topicPrefix,
    KAFKA_CLIENT_ID: id,
    RPC_URL: anvil.rpcUrl,
    CHAIN_ID: '31337',
    WEBHOOK_QUEUE_PREFIX: `${id}-q`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  };
  const perApp: Record<AppName, Record<string, string>> = {
    'chain-follower': {
      OPS_PORT: String(ports.get('chain-follower')),
      CONFIRMATIONS: '2',
      START_BLOCK: '0',
      POLL_INTERVAL_MS: '100',
      RPC_CONCURRENCY: '2',
      RPC_TIMEOUT_MS: '10000',
      PROGRESS_INTERVAL_MS: '60000',
    },
    projector: { OPS_PORT: String(ports.get('projector')), KAFKA_GROUP_ID: groupIds.projector },
    gateway: {
      HTTP_PORT: String(gatewayHttpPort),
      OPS_PORT: String(ports.get('gateway')),
      HTTP_HOST: '127.0.0.1',
      RATE_LIMIT_PER_SECOND: '0',
      CURSOR_SECRET: `e2e-cursor-secret-${id}`,
      TEST_WEBHOOK_TIMEOUT_MS: '5000',
    },
    'stream-matcher': { OPS_PORT: String(ports.get('stream-matcher')), MATCHER_GROUP_ID: groupIds.matcher },
    'webhook-sender': {
      OPS_PORT: String(ports.get('webhook-sender')),
      RETRY_SCHEDULE_MS: '200,500,1000,2000',
      WEBHOOK_TIMEOUT_MS: '60000',
      SENDER_CONCURRENCY: '4',
      // A killed sender's jobs return within seconds, not BullMQ's default half minute.
      LOCK_DURATION_MS: '3000',
      STALLED_INTERVAL_MS: '1000',
    },
  };

  const running = new Map<AppName, RunningService>();
  const logFile = (app: AppName) => join(logDir, `${app}.log`);
  const moreFollowers: RunningService[] = [];
  const startMoreFollower = async ({ chainId, rpcUrl }: { chainId: number; rpcUrl: string }) => {
    const port = await freePort();
    const env = { ...common, ...perApp['chain-follower'], ...opts.env?.['chain-follower'] };
    moreFollowers.push(
      await startService({
        app: 'chain-follower',
        port,
        env: { ...env, CHAIN_ID: String(chainId), RPC_URL: rpcUrl, OPS_PORT: String(port) },
        logFile: join(logDir, `chain-follower-${chainId}.log`),
      }),
    );
  };
  const start = async (app: AppName, extraEnv: Record<string, string> = {}) => {
    const service = await startService({
      app,
      port: ports.get(app)!,
      env: { ...common, ...perApp[app], ...opts.env?.[app], ...extraEnv },
      logFile: logFile(app),
    });
    running.set(app, service);
    return service;
  };
  const end = async (app: AppName, how: 'stop' | 'kill') => {
    const service = running.get(app);
    if (!service) throw new Error(`${app} is not running`);
    const info = await service[how]();
    running.delete(app);
    return info;
  };

  const close = async () => {
    await Promise.allSettled([
      ...[...running.keys()].map((app) => end(app, 'stop')),
      ...moreFollowers.map((f) => f.stop()),
    ]);
    await pool.end().catch(() => {});
    await db.drop().catch(() => {});
    if (!opts.anvil) await anvil.stop();
  };
  try {
    await Promise.all([
      ...opts.apps.map((app) => start(app)),
      ...(opts.moreChains ?? []).map(startMoreFollower),
    ]);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    anvil,
    db,
    pool,
    apiKey,
    gatewayUrl: `http://127.0.0.1:${gatewayHttpPort}`,
    topicPrefix,
    groupIds,
    logDir,
    start,
    stop: (app) => end(app, 'stop'),
    kill: (app) => end(app, 'kill'),
    running: (app) => running.get(app),
    diagnostics: () =>
      [
        `service logs in ${logDir}`,
        ...apps.map((app) => `--- ${app}\n${tail(logFile(app), 25)}`),
        ...moreFollowers.map((f) => `--- ${f.logFile}\n${tail(f.logFile, 25)}`),
      ].join('\n'),
    close,
  };
}
