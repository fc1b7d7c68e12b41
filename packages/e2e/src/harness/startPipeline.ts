import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Pool, createPool } from '@tributary/db';
import { type CreatedApiKey, createAccountWithKey } from '@tributary/db/accounts';
import {
  type StartedAnvil,
  type TestDatabase,
  createTestDatabase,
  freePort,
  getTestSettings,
  startAnvil,
  uniqueName,
} from '@tributary/testkit';
import type { AppName } from '@tributary/testkit/bench';
import { type ExitInfo, type RunningService, startService, tail } from './startService.ts';

/**
 * The apps a deployment may run several processes of. Not the chain-follower: one per chain, the
 * single writer of its checkpoint (a restarted one resumes from it).
 */
export type ScalableApp = Exclude<AppName, 'chain-follower'>;

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
  /**
   * Starts (or restarts) one process of an app with its fixed ports and settings, plus `extraEnv`.
   * `instance` (1 by default) names one of several processes of the app, each with ports and a log
   * file of its own (`<app>.log`, then `<app>-2.log`, ...), sharing everything else.
   */
  start(app: AppName, extraEnv?: Record<string, string>, instance?: number): Promise<RunningService>;
  stop(app: AppName, instance?: number): Promise<ExitInfo>;
  kill(app: AppName, instance?: number): Promise<ExitInfo>;
  running(app: AppName, instance?: number): RunningService | undefined;
  /** The public URL of one gateway process (instance 1's is `gatewayUrl`). */
  gatewayUrlOf(instance: number): string;
  /**
   * The KAFKA_CLIENT_ID of one process: the clientId of its consumer-group members is this, or
   * this and a suffix after a dash.
   */
  kafkaClientId(app: AppName, instance?: number): string;
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
  /** How many processes of each app in `apps` to start (1 by default): a scaled deployment. */
  replicas?: Partial<Record<ScalableApp, number>>;
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
  const key = (app: AppName, instance: number) => `${app}#${instance}`;
  // Each process's ops port (the gateway's too: its metrics and detailed readiness are there), and
  // each gateway's API port, chosen once: a restarted process keeps its ports.
  const ports = new Map<string, { ops: number; http: number }>();
  const portsOf = async (app: AppName, instance: number) => {
    const known = ports.get(key(app, instance));
    if (known) return known;
    const chosen = { ops: await freePort(), http: app === 'gateway' ? await freePort() : 0 };
    ports.set(key(app, instance), chosen);
    return chosen;
  };
  const replicasOf = (app: AppName) =>
    app === 'chain-follower' ? 1 : Math.max(1, opts.replicas?.[app] ?? 1);
  for (const app of apps) for (let i = 1; i <= replicasOf(app); i++) await portsOf(app, i);

  const common: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['E2E_SERVICE_LOG_LEVEL'] ?? 'info',
    SHUTDOWN_DEADLINE_MS: '10000',
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: settings.redisUrl,
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: topicPrefix,
    RPC_URL: anvil.rpcUrl,
    CHAIN_ID: '31337',
    WEBHOOK_QUEUE_PREFIX: `${id}-q`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  };
  const perApp: Record<AppName, Record<string, string>> = {
    'chain-follower': {
      CONFIRMATIONS: '2',
      START_BLOCK: '0',
      POLL_INTERVAL_MS: '100',
      RPC_CONCURRENCY: '2',
      RPC_TIMEOUT_MS: '10000',
      PROGRESS_INTERVAL_MS: '60000',
    },
    projector: { KAFKA_GROUP_ID: groupIds.projector },
    gateway: {
      HTTP_HOST: '127.0.0.1',
      RATE_LIMIT_PER_SECOND: '0',
      CURSOR_SECRET: `e2e-cursor-secret-${id}`,
      TEST_WEBHOOK_TIMEOUT_MS: '5000',
    },
    'stream-matcher': { MATCHER_GROUP_ID: groupIds.matcher },
    'webhook-sender': {
      RETRY_SCHEDULE_MS: '200,500,1000,2000',
      WEBHOOK_TIMEOUT_MS: '60000',
      SENDER_CONCURRENCY: '4',
      // A killed sender's jobs return within seconds, not BullMQ's default half minute.
      LOCK_DURATION_MS: '3000',
      STALLED_INTERVAL_MS: '1000',
    },
  };

  const running = new Map<string, RunningService>();
  const logFile = (app: AppName, instance: number) =>
    join(logDir, instance === 1 ? `${app}.log` : `${app}-${instance}.log`);
  const kafkaClientId = (app: AppName, instance = 1) => `${id}-${app}-${instance}`;
  const moreFollowers: RunningService[] = [];
  const startMoreFollower = async ({ chainId, rpcUrl }: { chainId: number; rpcUrl: string }) => {
    const port = await freePort();
    const env = { ...common, ...perApp['chain-follower'], ...opts.env?.['chain-follower'] };
    moreFollowers.push(
      await startService({
        app: 'chain-follower',
        port,
        env: {
          ...env,
          KAFKA_CLIENT_ID: `${id}-chain-follower-${chainId}`,
          CHAIN_ID: String(chainId),
          RPC_URL: rpcUrl,
          OPS_PORT: String(port),
        },
        logFile: join(logDir, `chain-follower-${chainId}.log`),
      }),
    );
  };
  const start = async (app: AppName, extraEnv: Record<string, string> = {}, instance = 1) => {
    if (app === 'chain-follower' && instance !== 1)
      throw new Error('one chain-follower per chain: a second one of the same chain is not a deployment');
    const port = await portsOf(app, instance);
    const service = await startService({
      app,
      port: port.ops,
      env: {
        ...common,
        KAFKA_CLIENT_ID: kafkaClientId(app, instance),
        OPS_PORT: String(port.ops),
        ...(app === 'gateway' ? { HTTP_PORT: String(port.http) } : {}),
        ...perApp[app],
        ...opts.env?.[app],
        ...extraEnv,
      },
      logFile: logFile(app, instance),
    });
    running.set(key(app, instance), service);
    return service;
  };
  const end = async (app: AppName, how: 'stop' | 'kill', instance = 1) => {
    const service = running.get(key(app, instance));
    if (!service) throw new Error(`${app} (instance ${instance}) is not running`);
    const info = await service[how]();
    running.delete(key(app, instance));
    return info;
  };
  const gatewayUrlOf = (instance: number) => {
    const port = ports.get(key('gateway', instance));
    if (!port) throw new Error(`no gateway instance ${instance}`);
    return `http://127.0.0.1:${port.http}`;
  };

  const close = async () => {
    await Promise.allSettled([
      ...[...running.values()].map((service) => service.stop()),
      ...moreFollowers.map((f) => f.stop()),
    ]);
    running.clear();
    await pool.end().catch(() => {});
    await db.drop().catch(() => {});
    if (!opts.anvil) await anvil.stop();
  };
  try {
    await Promise.all([
      ...opts.apps.flatMap((app) => Array.from({ length: replicasOf(app) }, (_, i) => start(app, {}, i + 1))),
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
    gatewayUrl: gatewayUrlOf(1),
    topicPrefix,
    groupIds,
    logDir,
    start,
    stop: (app, instance) => end(app, 'stop', instance),
    kill: (app, instance) => end(app, 'kill', instance),
    running: (app, instance = 1) => running.get(key(app, instance)),
    gatewayUrlOf,
    kafkaClientId,
    diagnostics: () =>
      [
        `service logs in ${logDir}`,
        ...[...ports.keys()].map((k) => {
          const [app, instance] = k.split('#') as [AppName, string];
          const file = logFile(app, Number(instance));
          return `--- ${file.slice(logDir.length + 1)}\n${tail(file, 25)}`;
        }),
        ...moreFollowers.map((f) => `--- ${f.logFile}\n${tail(f.logFile, 25)}`),
      ].join('\n'),
    close,
  };
}
