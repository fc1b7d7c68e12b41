// Data-API load benchmark (issue 3, item 6b): seeds or reuses tributary_bench (seedDataset.ts),
// starts real gateway processes against it, and drives each endpoint at a fixed rate, open loop
// (openLoopLoad.ts: latency from each request's due time):
// transfers 1,000 rps, logs 500 rps, owners 500 rps, BENCH_SECONDS (30) each after a warm-up at
// the same rate (60 s). Prints a table and writes bench/results/data-api.json at the repo root, with
// the dataset's bytes per transfer and per log on disk, every index included. It measures
// and reports; it never passes or fails on a time (the targets are printed next to the figures).
// Env: DATABASE_URL, REDIS_URL, BENCH_ROWS (10,000,000), BENCH_SECONDS (30),
// BENCH_WARMUP_SECONDS (60), BENCH_GATEWAYS (2), BENCH_GATEWAY_POOL_SIZE (4), BENCH_KEEP_CHECKPOINTS, BENCH_ONLY (e.g. "owners,logs"), BENCH_CONNECTIONS (most open
// connections, 256), BENCH_RATE_SCALE (1), BENCH_GATEWAY_LOG_LEVEL (info), BENCH_PG_OPTIONS (session settings for the gateway,
// e.g. "-c jit=on", given in DATABASE_URL's `options` after the gateway's own settings, so they
// win), BENCH_PROFILE_SAMPLES (300; per-query service times after the load, 0 skips),
// BENCH_RESULTS (output path).
// The load generator runs in this process, started (package.json) with --initial-old-space-size=512:
// with V8's default sizing its old generation's limit sat just above its ~18 MB of live data, and
// the objects each second of requests leaves behind brought a full mark-compact every ~0.3 s
// (74-97 per 45 s run, up to 28-30 ms each). Requests due during such a pause went out late and
// their latency counted against the gateway (see sendLateMax). The gateways are separate
// processes and run with their own settings.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool } from '@tributary/db';
import { createAccountWithKey } from '@tributary/db/accounts';
import { measureMachineSpeed, measureTableBytes } from '@tributary/testkit/bench';
import pg from 'pg';
import { READ_SESSION_SETTINGS, withSessionSettings } from '../src/db-settings/withSessionSettings.ts';
import type { SeedParams } from './datasetShape.ts';
import { cacheCounters, cpuMeter, load1, machineDescription, postgresDescription } from './machineProbe.ts';
import { type EndpointName, RequestMix } from './requestMix.ts';
import { percentile, runOpenLoop } from './openLoopLoad.ts';
import { profileQueries } from './profileQueries.ts';
import { BYTES_TABLES, seedDataset } from './seedDataset.ts';
import { type RunningGateway, startGateway } from './startGateway.ts';

const env = process.env;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS = env['BENCH_RESULTS'] ?? `${ROOT}bench/results/data-api.json`;
const SECONDS = Number(env['BENCH_SECONDS'] ?? 30);
// The figures are of a warm server: with 10 s the phase measured its cache still warming (at 25M
// transfers 153k blocks read from outside shared buffers in 30 s, 14k after 60 s; p99 250 / 36 ms
// against 9 ms), which says how long a cold start takes, not how the query tables scale.
const WARMUP = Number(env['BENCH_WARMUP_SECONDS'] ?? 60);
const BASE_URL = env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';

// BENCH_RATE_SCALE (1): multiplies every phase's rate, e.g. 0.4 to measure CPU per request below saturation.
const RATE_SCALE = Number(env['BENCH_RATE_SCALE'] ?? 1);
const TARGETS: { endpoint: EndpointName; rate: number; targetP99Ms: number }[] = [
  { endpoint: 'transfers', rate: 1_000, targetP99Ms: 30 },
  { endpoint: 'logs', rate: 500, targetP99Ms: 50 },
  { endpoint: 'owners', rate: 500, targetP99Ms: 50 },
];
const PHASES = TARGETS.map((p) => ({ ...p, rate: Math.round(p.rate * RATE_SCALE) }));

const CONNECTIONS = Number(env['BENCH_CONNECTIONS'] ?? 256);
// BENCH_GATEWAYS (2): gateway processes (replicas on their own ports); the load spreads its
// connections over them as a load balancer would. One Node.js process runs on one core at a time,
// and here it shares the cores with PostgreSQL and the load generator: alone it was preempted
// often enough to cap the machine at 83-87% busy. BENCH_GATEWAY_POOL_SIZE (4): each one's
// PostgreSQL pool; more connections than cores only add runnable backends competing for them.
const GATEWAYS = Number(env['BENCH_GATEWAYS'] ?? 2);
const GATEWAY_POOL_SIZE = env['BENCH_GATEWAY_POOL_SIZE'] ?? '4';
const round = (ms: number) => Number(ms.toFixed(1));

const say = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

function drive(gateways: RunningGateway[], apiKey: string, mix: RequestMix, rate: number, seconds: number) {
  return runOpenLoop({
    origins: gateways.map((g) => g.url),
    rate,
    seconds,
    maxConnections: CONNECTIONS,
    headers: { 'x-api-key': apiKey, accept: 'application/json' },
    nextPath: () => mix.path(),
    onResponse: (path, status, body) => {
      if (status === 200) mix.observe(path, body);
    },
  });
}

/**
 * Waits (60 s at most) until the gateway has no query running: a client that gave up does not
 * stop the query it caused, and a previous phase's slow queries would load the next phase.
 */
async function settle(db: pg.Client): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < 60_000) {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'gateway' AND state = 'active'`,
    );
    if (Number(rows[0]?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return Number(((Date.now() - start) / 1000).toFixed(1));
}

async function runPhase(
  gateways: RunningGateway[],
  apiKey: string,
  db: pg.Client,
  params: SeedParams,
  phase: (typeof PHASES)[number],
) {
  const settleSeconds = await settle(db);
  const machineSpeed = await measureMachineSpeed();
  say(`${phase.endpoint}: machine speed ${JSON.stringify(machineSpeed)}`);
  const mix = new RequestMix(phase.endpoint, params);
  if (WARMUP > 0) {
    say(`${phase.endpoint}: warm-up ${WARMUP} s at ${phase.rate} rps`);
    await drive(gateways, apiKey, mix, phase.rate, WARMUP);
  }
  mix.pagesRequested = 0;
  const loadBefore = load1();
  const cache0 = await cacheCounters(db);
  const cpu = cpuMeter(gateways.map((g) => g.pid));
  const benchCpu = process.cpuUsage();
  const benchStart = Date.now();
  say(`${phase.endpoint}: ${SECONDS} s at ${phase.rate} rps (load average ${loadBefore})`);
  const r = await drive(gateways, apiKey, mix, phase.rate, SECONDS);
  const usage = cpu();
  const benchUsage = process.cpuUsage(benchCpu);
  const loadGeneratorCores = Number(
    ((benchUsage.user + benchUsage.system) / 1000 / (Date.now() - benchStart)).toFixed(2),
  );
  const cache1 = await cacheCounters(db);
  const hits = cache1.hit - cache0.hit;
  const reads = cache1.read - cache0.read;
  return {
    endpoint: phase.endpoint,
    targetRps: phase.rate,
    targetP99Ms: phase.targetP99Ms,
    achievedRps: Number(((r.statusCounts['200'] ?? 0) / r.seconds).toFixed(1)),
    responses2xx: r.statusCounts['200'] ?? 0,
    non2xx: r.completed - (r.statusCounts['200'] ?? 0),
    statusCodes: r.statusCounts,
    errors: r.errors,
    latencyMs: {
      p50: round(percentile(r.latenciesMs, 50)),
      p90: round(percentile(r.latenciesMs, 90)),
      p99: round(percentile(r.latenciesMs, 99)),
      max: round(percentile(r.latenciesMs, 100)),
      mean: round(r.latenciesMs.reduce((a, b) => a + b, 0) / Math.max(1, r.latenciesMs.length)),
    },
    p99WithinTarget: percentile(r.latenciesMs, 99) <= phase.targetP99Ms,
    // Whether the tail is spread over the run or comes in bursts: the seconds whose own p99 missed
    // the target, and the five slowest seconds.
    secondsOverTargetP99: r.perSecond.filter((s) => s.p99 > phase.targetP99Ms).length,
    slowestSeconds: [...r.perSecond].sort((a, b) => b.p99 - a.p99).slice(0, 5),
    // The load generator shares the cores: how late it sent a request at worst (its own stall,
    // counted in every latency above). Each slow second carries its own figure (sendLateMax).
    generatorSendLateMaxMs: Math.max(0, ...r.perSecond.map((s) => s.sendLateMax)),
    maxConnections: CONNECTIONS,
    maxInFlight: r.maxInFlight,
    cursorPages: mix.pagesRequested,
    avgResponseBytes: r.completed > 0 ? Math.round(r.bytes / r.completed) : 0,
    loadAverage1m: { before: loadBefore, after: load1() },
    machineSpeedBefore: machineSpeed,
    settleSecondsBefore: settleSeconds,
    cpu: { ...usage, loadGeneratorCores },
    postgres: {
      bufferHitPercent: hits + reads > 0 ? Number(((hits / (hits + reads)) * 100).toFixed(2)) : null,
      blocksRead: reads,
      tempBytes: cache1.temp - cache0.temp,
    },
  };
}

function printTable(rows: Awaited<ReturnType<typeof runPhase>>[]) {
  const head = [
    'endpoint',
    'target',
    'achieved rps',
    'p50',
    'p90',
    'p99',
    'max',
    'p99 target',
    'non-2xx',
    'gw cores',
    'pg cores',
    'gen late max',
    'load 1m',
  ];
  const lines = rows.map((r) => [
    r.endpoint,
    `${r.targetRps} rps`,
    String(r.achievedRps),
    `${r.latencyMs.p50} ms`,
    `${r.latencyMs.p90} ms`,
    `${r.latencyMs.p99} ms`,
    `${r.latencyMs.max} ms`,
    `<= ${r.targetP99Ms} ms${r.p99WithinTarget ? '' : ' (missed)'}`,
    String(r.non2xx + r.errors),
    String(r.cpu.gatewayCores),
    String(r.cpu.postgresCores),
    `${r.generatorSendLateMaxMs} ms`,
    `${r.loadAverage1m.before} -> ${r.loadAverage1m.after}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(`\n${fmt(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const l of lines) console.log(fmt(l));
  console.log('');
}

const benchUrl = await seedDataset(BASE_URL, env);
const db = new pg.Client({ connectionString: benchUrl, application_name: 'bench-probe' });
await db.connect();
// Every run starts without stored wallet-transfer checkpoints (range totals): their first use,
// which counts the range, is part of the run rather than left to an earlier one.
// BENCH_KEEP_CHECKPOINTS=1 keeps those of earlier runs (a server that has been answering a while).
const KEEP_CHECKPOINTS = env['BENCH_KEEP_CHECKPOINTS'] === '1';
if (!KEEP_CHECKPOINTS) await db.query('TRUNCATE wallet_transfer_checkpoints');
let gateways: RunningGateway[] = [];
const stop = async () => {
  await Promise.all(gateways.map((g) => g.stop()));
};
process.once('SIGINT', () => void stop().finally(() => process.exit(130)));
try {
  const seed = (
    await db.query<{ params: SeedParams; seconds: string }>(
      'SELECT params, seconds FROM bench_seed ORDER BY seeded_at DESC LIMIT 1',
    )
  ).rows[0];
  if (!seed) throw new Error('tributary_bench has no bench_seed row');
  const pool = createPool({ connectionString: benchUrl, max: 1, application: 'bench-keys' });
  const { key } = await createAccountWithKey(pool, { accountName: 'bench', label: 'data-api bench' });
  await pool.end();

  const gatewayUrl = new URL(benchUrl);
  if (env['BENCH_PG_OPTIONS']) gatewayUrl.searchParams.set('options', env['BENCH_PG_OPTIONS']);
  const gatewayEnv = {
    DATABASE_URL: gatewayUrl.toString(),
    NODE_ENV: 'development',
    RATE_LIMIT_PER_SECOND: '0',
    // The one key's lookups are charged to the client address until they succeed: under a saturated
    // machine they overran the budget and the key's later lookups were refused with 429 for the rest
    // of the window. Not what this bench measures.
    AUTH_FAILURES_PER_MINUTE: '0',
    LOG_LEVEL: env['BENCH_GATEWAY_LOG_LEVEL'] ?? 'info',
    PGOPTIONS: env['BENCH_PG_OPTIONS'],
    DATABASE_POOL_SIZE: GATEWAY_POOL_SIZE,
  };
  const only = env['BENCH_ONLY']?.split(',').map((s) => s.trim());
  const results = [];
  for (const phase of PHASES) {
    if (only && !only.includes(phase.endpoint)) continue;
    // Fresh gateway processes per phase: a saturated phase leaves requests queued in the ones it
    // used, which would otherwise be served during the next phase.
    gateways = await Promise.all(Array.from({ length: GATEWAYS }, () => startGateway(gatewayEnv)));
    for (const g of gateways) say(`gateway ready at ${g.url} (pid ${g.pid})`);
    results.push(await runPhase(gateways, key, db, seed.params, phase));
    await stop();
    gateways = [];
    say(`${phase.endpoint}: done`);
  }
  printTable(results);

  // Service time of each query alone (same session settings as the gateway): separates slow
  // queries from CPU contention.
  const samples = Number(env['BENCH_PROFILE_SAMPLES'] ?? 300);
  let serviceTimesMs: Awaited<ReturnType<typeof profileQueries>> | null = null;
  if (samples > 0) {
    await settle(db);
    const profilePool = createPool({
      connectionString: withSessionSettings(gatewayEnv.DATABASE_URL),
      max: 1,
      application: 'bench-profile',
    });
    say(`profiling the queries one at a time (${samples} samples)`);
    serviceTimesMs = await profileQueries(profilePool, seed.params, samples).finally(() => profilePool.end());
    console.table(serviceTimesMs);
  }

  const bytes = await measureTableBytes(db, BYTES_TABLES);
  for (const [table, b] of Object.entries(bytes))
    say(`${table}: ${b.bytesPerRow} bytes per row, all indexes included`);
  const report = {
    at: new Date().toISOString(),
    benchmark: 'data API under load (issue 3, item 6b): open-loop load at a fixed rate per endpoint',
    machine: machineDescription(),
    postgres: await postgresDescription(db),
    gateway: {
      processes: GATEWAYS,
      env: {
        NODE_ENV: 'development',
        RATE_LIMIT_PER_SECOND: 0,
        AUTH_FAILURES_PER_MINUTE: 0,
        LOG_LEVEL: gatewayEnv.LOG_LEVEL,
        DATABASE_POOL_SIZE: Number(GATEWAY_POOL_SIZE),
        PGOPTIONS: gatewayEnv.PGOPTIONS ?? null,
      },
      sessionSettings: { ...READ_SESSION_SETTINGS, overriddenBy: gatewayEnv.PGOPTIONS ?? null },
    },
    dataset: {
      database: new URL(benchUrl).pathname.slice(1),
      params: seed.params,
      seedSeconds: Number(seed.seconds),
      // On disk per row, every index included, as the seed built them (indexes built in one go).
      bytes,
      rows: Object.fromEntries(
        (
          await db.query<{ relname: string; n: string }>(
            `SELECT relname, reltuples::bigint AS n FROM pg_class
              WHERE relname IN ('transfers', 'logs', 'balances', 'blocks', 'tokens') AND relkind = 'r'`,
          )
        ).rows.map((r) => [r.relname, Number(r.n)]),
      ),
    },
    run: {
      seconds: SECONDS,
      warmupSeconds: WARMUP,
      rateScale: RATE_SCALE,
      checkpoints: KEEP_CHECKPOINTS ? 'kept from earlier runs' : 'cleared at the start',
      loadModel:
        'open loop, evenly spaced requests; latency from each request due time (no coordinated omission)',
      databaseConnection: new URL(BASE_URL).searchParams.get('host')?.startsWith('/') ? 'unix socket' : 'tcp',
    },
    endpoints: results,
    serviceTimesMs: {
      note:
        'each query alone, one connection, no HTTP, over the same parameter mix (load average ' +
        load1() +
        ')',
      ...serviceTimesMs,
    },
  };
  await mkdir(dirname(RESULTS), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  say(`wrote ${RESULTS}`);
} finally {
  await stop();
  await db.end();
}
