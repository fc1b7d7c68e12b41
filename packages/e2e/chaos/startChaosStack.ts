import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Pool, createPool, migrate } from '@tributary/db';
import { type CreatedApiKey, createAccountWithKey } from '@tributary/db/accounts';
import {
  type FaultyRpc,
  type StartedAnvil,
  freePort,
  startAnvil,
  startFaultyRpc,
} from '@tributary/testkit/bench';
import { type ChainDriver, createChainDriver } from '../kinds/createChainDriver.ts';
import { type PrivateServers, startPrivateServers } from './privateServers.ts';
import { APP_NAMES, type AppName } from '@tributary/testkit/bench';
import { type SupervisedApp, superviseApp } from './superviseApp.ts';

export interface ChaosStack {
  dir: string;
  servers: PrivateServers;
  anvil: StartedAnvil;
  /** Builds the blocks (anvil mines only when told to). */
  driver: ChainDriver;
  /** The node as the services see it: a proxy whose faults (latency: a slow provider) are set at run time. */
  rpc: FaultyRpc;
  pool: Pool;
  apiKey: CreatedApiKey;
  apps: Map<AppName, SupervisedApp>;
  gatewayUrl: string;
  /** Each app's ops port (/readyz, /metrics), the gateway's included. */
  opsUrls: Map<AppName, string>;
  close(): Promise<void>;
}

/** Deep enough for reorgs of up to 3 blocks to orphan only unconfirmed blocks. */
export const CHAOS_CONFIRMATIONS = 4;
export const CHAOS_CHAIN_ID = 31337;

/**
 * The whole stack of a chaos run, of its own: PostgreSQL, Redis and Kafka (killable without
 * disturbing anyone), a private anvil that mines when the run says so, seen by the services
 * through a fault proxy, and the five services, each under a supervisor that restarts it when it
 * exits, as `npm start` and compose do. The follower logs its progress (and its mode: head or
 * backfill) at every step, so that a catch-up shows in its log.
 */
export async function startChaosStack(opts: {
  log: (line: string) => void;
  /** Where the servers' data and the service logs go (default: a new temporary dir). */
  dir?: string;
  /** Settings of a service that replace the chaos run's. */
  env?: Partial<Record<AppName, Record<string, string>>>;
}): Promise<ChaosStack> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'tributary-chaos-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own OS user and must reach its data dir.
  const logDir = join(dir, 'logs');
  mkdirSync(logDir);
  opts.log(`data and service logs in ${dir}`);
  const servers = await startPrivateServers(join(dir, 'servers'));
  opts.log(`servers up: ${servers.databaseUrl} ${servers.redisUrl} ${servers.kafkaBrokers}`);
  const anvil = await startAnvil({ automine: false });
  const rpc = await startFaultyRpc({ upstream: anvil.rpcUrl });
  const driver = createChainDriver({
    rpcUrl: anvil.rpcUrl,
    chainId: CHAOS_CHAIN_ID,
    exclusive: (change) => rpc.exclusive(change),
  });
  await migrate(servers.databaseUrl);
  const pool = createPool({ connectionString: servers.databaseUrl, max: 4, application: 'chaos' });
  pool.on('error', () => undefined); // PostgreSQL is killed on purpose: idle clients die with it.
  const apiKey = await createAccountWithKey(pool, { accountName: 'chaos' });

  const ports = new Map<AppName, number>();
  for (const app of APP_NAMES) ports.set(app, await freePort());
  const gatewayPort = await freePort();
  const common: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SHUTDOWN_DEADLINE_MS: '10000',
    DATABASE_URL: servers.databaseUrl,
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: servers.redisUrl,
    KAFKA_BROKERS: servers.kafkaBrokers,
    RPC_URL: rpc.url,
    CHAIN_ID: String(CHAOS_CHAIN_ID),
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    WATCHDOG_STALL_MS: '20000',
    WATCHDOG_EXIT_MS: '60000',
  };
  const perApp: Record<AppName, Record<string, string>> = {
    'chain-follower': {
      CONFIRMATIONS: String(CHAOS_CONFIRMATIONS),
      START_BLOCK: '0',
      POLL_INTERVAL_MS: '200',
      PROGRESS_INTERVAL_MS: '100',
    },
    projector: {},
    'stream-matcher': {},
    'webhook-sender': {
      RETRY_SCHEDULE_MS: '1000,2000,5000,10000,20000,30000,60000',
      LOCK_DURATION_MS: '5000',
      STALLED_INTERVAL_MS: '2000',
      RELAY_INTERVAL_MS: '2000',
    },
    gateway: {
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(gatewayPort),
      RATE_LIMIT_PER_SECOND: '0',
      CURSOR_SECRET: 'chaos-cursor-secret',
    },
  };
  const apps = new Map<AppName, SupervisedApp>();
  const opsUrls = new Map<AppName, string>();
  for (const app of APP_NAMES) {
    const port = String(ports.get(app));
    opsUrls.set(app, `http://127.0.0.1:${port}`);
    apps.set(
      app,
      superviseApp({
        app,
        env: { ...common, ...perApp[app], OPS_PORT: port, ...opts.env?.[app] },
        logFile: join(logDir, `${app}.log`),
      }),
    );
  }
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  for (const app of APP_NAMES) await waitReady(opsUrls.get(app)!, app);
  await waitReady(gatewayUrl, 'gateway (its public port)');
  opts.log('services ready');

  return {
    dir,
    servers,
    anvil,
    driver,
    rpc,
    pool,
    apiKey,
    apps,
    gatewayUrl,
    opsUrls,
    async close() {
      await Promise.allSettled([...apps.values()].map((a) => a.stop()));
      await pool.end().catch(() => undefined);
      await rpc.close();
      await anvil.stop();
      await servers.stop();
    },
  };
}

async function waitReady(baseUrl: string, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready at ${baseUrl} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
