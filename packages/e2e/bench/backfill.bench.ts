// Backfill benchmark: builds a chain of BENCH_LOGS ERC20 Transfer logs (BulkTransferEmitter, many logs
// per transaction) on a private anvil, backfills it end to end with the real services as child
// processes (chain-follower -> Kafka -> projector -> indexed PostgreSQL), timing from PostgreSQL
// (blocks projected, follower checkpoint), then replays the topic with a second projector alone into
// a fresh database, then measures in the same run the raw COPY rate of the very same rows into
// identically indexed tables of a fresh database (binary COPY with the projector's own writer,
// in-process). Records the CPU seconds of every process in each phase.
// Prints progress and the figures; writes bench/results/backfill.json at the repo root.
// Measures; never passes or fails on a time.
// Env: BENCH_LOGS (1000000), BENCH_LOGS_PER_TX (5000), BENCH_COMPRESSION (none|gzip, default none),
// BENCH_APPS_FROM (bundle: dist/main.mjs as the image runs it; source: src/main.ts through tsx),
// BENCH_KEEP_LOGS=true keeps the services' log files, BENCH_CPU_PROF=<dir> writes their CPU profiles
// there, BENCH_NODE_OPTIONS comes after the flags the services ship with (and wins), BENCH_NODE_ARGS adds node flags
// (e.g. --trace-gc), BENCH_FOLLOWER_<NAME> overrides one of the follower settings below;
// DATABASE_URL, KAFKA_BROKERS as usual.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKafka } from '@tributary/bus';
import { bulkTransferEmitterAbi } from '@tributary/contracts';
import { createPool, migrate } from '@tributary/db';
import { copyBinary } from '@tributary/db/chain';
import { createDevnetClient, deployBulkTransferEmitter } from '@tributary/devnet';
import {
  cpuSecondsBetween,
  cpuSnapshot,
  jemallocPreload,
  launchApp,
  measureMachineSpeed,
  measureTableBytes,
  serviceNodeOptions,
  type AppName,
} from '@tributary/testkit/bench';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOGS = Number(process.env['BENCH_LOGS'] ?? 1_000_000);
const PER_TX = Number(process.env['BENCH_LOGS_PER_TX'] ?? 5_000);
const COMPRESSION = process.env['BENCH_COMPRESSION'] ?? 'none';
const BASE_DB = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
const BROKERS = process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092';
const id = randomBytes(4).toString('hex');
const logDir = join(os.tmpdir(), `backfill-bench-${id}`);
const say = (msg: string, fields: object = {}) => console.log(JSON.stringify({ msg, ...fields }));

/** Settings of the services under test: a bulk backfill (no stream: no transactions or traces; no eth_getCode per party). */
const FOLLOWER_ENV = {
  CHAIN_ID: '31337',
  CONFIRMATIONS: '2',
  FETCH_ACCOUNT_KINDS: 'false',
  RANGE_BLOCKS: '1',
  MAX_RANGE_BLOCKS: '2000',
  RANGE_TARGET_LOGS: '5000',
  RPC_CONCURRENCY: '2',
  MAX_BATCH_BLOCKS: '200',
  POLL_INTERVAL_MS: '200',
  KAFKA_COMPRESSION: COMPRESSION,
  PROGRESS_INTERVAL_MS: '5000',
};
for (const key of Object.keys(FOLLOWER_ENV) as (keyof typeof FOLLOWER_ENV)[]) {
  const override = process.env[`BENCH_FOLLOWER_${key}`];
  if (override !== undefined) FOLLOWER_ENV[key] = override;
}
const PROJECTOR_ENV = {
  KAFKA_MAX_BYTES_PER_PARTITION: String(48 * 1024 * 1024),
  MAX_TRANSACTION_BYTES: String(16 * 1024 * 1024),
};
// The flags each service ships with (serviceNodeOptions), then BENCH_NODE_OPTIONS, which win.
const nodeOptionsOf = (app: AppName) => serviceNodeOptions(app, process.env['BENCH_NODE_OPTIONS']);
const PROFILE = process.env['BENCH_CPU_PROF'];
const FROM = process.env['BENCH_APPS_FROM'] === 'source' ? 'source' : 'bundle';

/** Every table the projector writes for these blocks: what the raw COPY writes too. */
const PROJECTED_TABLES = [
  'blocks',
  'address_ids',
  'logs',
  'transfers',
  'balances',
  'wallet_transfer_counts',
] as const;

const loadSamples: number[] = [];
const children: ChildProcess[] = [];
const dbs: string[] = [];
const port = await freePort();
const anvil = spawn(anvilBinary(), ['--port', String(port), '--silent', '--gas-limit', '300000000'], {
  stdio: 'ignore',
});
const kafka = createKafka({ brokers: BROKERS.split(','), clientId: `bench-${id}` });
const prefix = `bench-${id}.`;
await mkdir(logDir, { recursive: true });
try {
  const loadAtStart = os.loadavg();
  const machineSpeed = await measureMachineSpeed();
  say('machine speed', machineSpeed);
  const rpcUrl = `http://127.0.0.1:${port}`;
  await waitRpc(rpcUrl);
  const client = createDevnetClient({ rpcUrl });
  const bulk = await deployBulkTransferEmitter(client);
  const buildStart = Date.now();
  const txLogs = new Map<string, number>();
  let lastTx: `0x${string}` = '0x';
  // Explicit nonces: sent back to back, cached nonces could repeat one and leave a transaction pending.
  let nonce = await client.getTransactionCount({ address: client.account.address, blockTag: 'pending' });
  for (let sent = 0; sent < LOGS; sent += PER_TX) {
    const count = Math.min(PER_TX, LOGS - sent);
    const first = `0x${(0x100000 + sent).toString(16).padStart(40, '0')}` as `0x${string}`;
    const hash = await client.writeContract({
      address: bulk,
      abi: bulkTransferEmitterAbi,
      functionName: 'emitTransfers',
      args: [first, BigInt(count), 1n],
      gas: BigInt(count * 2_600 + 100_000),
      nonce: nonce++,
    });
    txLogs.set(hash.toLowerCase(), count);
    lastTx = hash;
  }
  await client.waitForTransactionReceipt({ hash: lastTx, timeout: 120_000 });
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  // Logs per block (automine: one transaction per block), for the projected-logs high-water mark.
  const logsUpTo: number[] = [];
  let running = 0;
  for (let n = 0; n <= head; n++) {
    const block = await client.getBlock({ blockNumber: BigInt(n) });
    for (const tx of block.transactions) running += txLogs.get(tx.toLowerCase()) ?? 0;
    logsUpTo.push(running);
  }
  if (running !== LOGS) throw new Error(`chain holds ${running} bulk logs, expected ${LOGS}`);
  say('chain built', { logs: LOGS, blocks: head + 1, seconds: (Date.now() - buildStart) / 1000 });

  const dbUrl = await createDatabase(`bench_backfill_${id}`);
  await migrate(dbUrl);
  // Reads every projected row at the end: no statement limit.
  const pool = createPool({ connectionString: dbUrl, max: 2, timeouts: { statementTimeoutMs: 0 } });
  const common = {
    DATABASE_URL: dbUrl,
    KAFKA_BROKERS: BROKERS,
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_CLIENT_ID: `bench-${id}`,
    LOG_LEVEL: 'info',
  };
  const projectorPort = await freePort();
  const projector = startApp('projector', {
    ...common,
    ...PROJECTOR_ENV,
    KAFKA_GROUP_ID: `bench-${id}`,
    OPS_PORT: String(projectorPort),
  });
  await waitReady(projectorPort, projector);
  say('projector ready; starting the follower', { logs: logDir });

  const followerPort = await freePort();
  const cpuBefore = cpuSnapshot();
  const started = Date.now();
  const follower = startApp('chain-follower', {
    ...common,
    ...FOLLOWER_ENV,
    RPC_URL: rpcUrl,
    OPS_PORT: String(followerPort),
  });
  let followerSeconds = 0;
  let firstProjectedAt = 0;
  let lastReport = { at: started, logs: 0, blocks: 0 };
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    if (follower.exitCode !== null || projector.exitCode !== null) {
      throw new Error(`a service exited early; see ${logDir}`);
    }
    const { rows } = await pool.query<{ blocks: string; hw: string | null; cp: string | null }>(
      `SELECT count(*) AS blocks, max(number) AS hw,
         (SELECT block_number FROM follower_checkpoints WHERE chain_id = 31337) AS cp FROM blocks`,
    );
    const r = rows[0]!;
    const blocks = Number(r.blocks);
    const hw = r.hw === null ? -1 : Number(r.hw);
    const cp = r.cp === null ? -1 : Number(r.cp);
    // One partition, blocks projected in order: all blocks up to hw are in when count = hw + 1.
    const projected = blocks === hw + 1 && hw >= 0 ? logsUpTo[hw]! : 0;
    const now = Date.now();
    if (projected > 0 && !firstProjectedAt) firstProjectedAt = now;
    if (!followerSeconds && cp >= head) followerSeconds = (now - started) / 1000;
    if (blocks === head + 1) break;
    if (now - lastReport.at >= 2_000) {
      const dt = (now - lastReport.at) / 1000;
      const logsPerSec = (projected - lastReport.logs) / dt;
      const overall = projected / ((now - started) / 1000);
      say('progress', {
        seconds: Math.round((now - started) / 100) / 10,
        followerBlock: cp,
        projectedBlock: hw,
        head,
        projectedLogs: projected,
        blocksPerSec: Math.round(((blocks - lastReport.blocks) / dt) * 10) / 10,
        logsPerSec: Math.round(logsPerSec),
        overallLogsPerSec: Math.round(overall),
        etaSec: overall > 0 ? Math.round((LOGS - projected) / overall) : null,
        load1: os.loadavg()[0],
      });
      lastReport = { at: now, logs: projected, blocks };
    }
    loadSamples.push(os.loadavg()[0]!);
  }
  const endedAt = Date.now();
  const endToEndSeconds = (endedAt - started) / 1000;
  const loadAtEnd = os.loadavg();
  // Where the machine's CPU went during the run (kafka is the broker's `java`).
  const cpuSeconds = cpuSecondsBetween(cpuBefore, cpuSnapshot(), {
    anvil: anvil.pid,
    'chain-follower': follower.pid,
    projector: projector.pid,
    'bench (polling)': process.pid,
  });
  say('cpu seconds', cpuSeconds);
  await Promise.all([stopApp(follower), stopApp(projector)]);
  const counts = (
    await pool.query<{ logs: string; transfers: string; balances: string; wallets: string; blocks: string }>(
      `SELECT (SELECT count(*) FROM logs) AS logs, (SELECT count(*) FROM transfers) AS transfers,
         (SELECT count(*) FROM balances) AS balances, (SELECT count(*) FROM wallet_transfer_counts) AS wallets,
         (SELECT count(*) FROM blocks) AS blocks`,
    )
  ).rows[0]!;
  const projectedRows = {
    logs: Number(counts.logs),
    transfers: Number(counts.transfers),
    balances: Number(counts.balances),
    walletTransferCounts: Number(counts.wallets),
    blocks: Number(counts.blocks),
  };
  say('backfill done', {
    endToEndSeconds,
    logsPerSec: Math.round(LOGS / endToEndSeconds),
    followerSeconds,
    rows: projectedRows,
  });
  if (projectedRows.logs !== LOGS || projectedRows.transfers !== LOGS) {
    throw new Error(`projected ${JSON.stringify(projectedRows)}, expected ${LOGS} logs and transfers`);
  }
  // As the projector wrote them, row by row: indexes that grew by page splits, not built in one go.
  const projectedBytes = await measureTableBytes(pool, ['transfers', 'logs', 'address_ids']);
  say('bytes per row as projected', {
    transfers: projectedBytes['transfers']?.bytesPerRow,
    logs: projectedBytes['logs']?.bytesPerRow,
    addressIds: projectedBytes['address_ids']?.totalBytes,
  });

  // The projector alone: a second projector (its own consumer group) replays the topic the
  // follower filled into a fresh database, with nothing else running: what the projector and
  // PostgreSQL cost without the follower, anvil and the broker's producing side beside them.
  const replayUrl = await createDatabase(`bench_replay_${id}`);
  await migrate(replayUrl);
  const replayPool = createPool({ connectionString: replayUrl, max: 1 });
  const replayPort = await freePort();
  const replayCpuBefore = cpuSnapshot();
  const replayStarted = Date.now();
  const replay = startApp('projector', {
    ...common,
    ...PROJECTOR_ENV,
    DATABASE_URL: replayUrl,
    KAFKA_GROUP_ID: `bench-${id}-replay`,
    OPS_PORT: String(replayPort),
  });
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    if (replay.exitCode !== null) throw new Error(`the replaying projector exited early; see ${logDir}`);
    const { rows } = await replayPool.query<{ blocks: string }>('SELECT count(*) AS blocks FROM blocks');
    if (Number(rows[0]!.blocks) === head + 1) break;
  }
  const projectorOnlySeconds = (Date.now() - replayStarted) / 1000;
  const projectorOnlyCpu = cpuSecondsBetween(replayCpuBefore, cpuSnapshot(), {
    projector: replay.pid,
    'bench (polling)': process.pid,
  });
  await stopApp(replay);
  await replayPool.end();
  say('projector alone', {
    seconds: projectorOnlySeconds,
    logsPerSec: Math.round(LOGS / projectorOnlySeconds),
  });

  // Raw COPY of the same rows into the same (indexed) tables of a fresh database, same run.
  const copyUrl = await createDatabase(`bench_copy_${id}`);
  await migrate(copyUrl);
  // One COPY of every row of a table: no statement limit.
  const copyPool = createPool({ connectionString: copyUrl, max: 1, timeouts: { statementTimeoutMs: 0 } });
  const rawCopy: Record<string, { rows: number; seconds: number; rowsPerSec: number }> = {};
  let rawCopyCpu = cpuSecondsBetween(cpuSnapshot(), cpuSnapshot());
  for (const table of PROJECTED_TABLES) {
    const { columns, types, rows } = await readRows(pool, table);
    const c = await copyPool.connect();
    try {
      const cpu0 = cpuSnapshot();
      const t0 = performance.now();
      await c.query('BEGIN');
      await copyRawRows(c, table, columns, types, rows);
      await c.query('COMMIT');
      const seconds = (performance.now() - t0) / 1000;
      rawCopyCpu = addCpu(
        rawCopyCpu,
        cpuSecondsBetween(cpu0, cpuSnapshot(), { 'bench (COPY writer)': process.pid }),
      );
      rawCopy[table] = { rows: rows.length, seconds, rowsPerSec: Math.round(rows.length / seconds) };
    } finally {
      c.release();
    }
    say('raw COPY', { table, ...rawCopy[table] });
  }
  await copyPool.end();
  await pool.end();

  const copySeconds = (tables: string[]) => tables.reduce((s, t) => s + (rawCopy[t]?.seconds ?? 0), 0);
  const rawAll = LOGS / copySeconds([...PROJECTED_TABLES]);
  const rawLogsTransfers = LOGS / copySeconds(['logs', 'transfers']);
  const e2e = LOGS / endToEndSeconds;
  const result = {
    at: new Date().toISOString(),
    logs: LOGS,
    logsPerTx: PER_TX,
    blocks: head + 1,
    target: { logsPerSec: 30_000, ratioToRawCopy: 0.6 },
    endToEnd: {
      seconds: endToEndSeconds,
      logsPerSec: Math.round(e2e),
      // From the first projected block on: without the services' start-up (tsx, Kafka group join).
      steadyLogsPerSec: Math.round(LOGS / ((endedAt - firstProjectedAt) / 1000)),
      ratioToRawCopy: round(e2e / rawAll),
      ratioToRawCopyLogsAndTransfers: round(e2e / rawLogsTransfers),
    },
    followerOnly: { seconds: followerSeconds, logsPerSec: Math.round(LOGS / followerSeconds) },
    // Includes the projector's start-up and Kafka group join (about 3 s).
    projectorOnly: { seconds: projectorOnlySeconds, logsPerSec: Math.round(LOGS / projectorOnlySeconds) },
    rawCopy: {
      ...rawCopy,
      // Every row the pipeline writes, per chain log: the ceiling for the end-to-end figure.
      allTablesLogsPerSec: Math.round(rawAll),
      logsAndTransfersLogsPerSec: Math.round(rawLogsTransfers),
    },
    projectedRows,
    projectedBytes,
    cpuSeconds: { endToEnd: cpuSeconds, projectorOnly: projectorOnlyCpu, rawCopy: rawCopyCpu },
    services: {
      follower: FOLLOWER_ENV,
      projector: PROJECTOR_ENV,
      nodeOptions: { follower: nodeOptionsOf('chain-follower'), projector: nodeOptionsOf('projector') },
      allocator: jemallocPreload(process.env) ? 'jemalloc' : "glibc's malloc",
      appsFrom: FROM,
    },
    machine: { ...(await machine(dbUrl)), speedBeforeRun: machineSpeed },
    load: {
      atStart: loadAtStart.map(round),
      atEnd: loadAtEnd.map(round),
      duringRun1m: {
        min: round(Math.min(...loadSamples)),
        mean: round(loadSamples.reduce((a, b) => a + b, 0) / Math.max(1, loadSamples.length)),
        max: round(Math.max(...loadSamples)),
      },
      note: 'the machine is shared: other engineers run test suites concurrently; load is the 1-minute load average',
    },
    note:
      'end to end = chain-follower (eth_getLogs + headers, child process; block events: decoded transfers name ' +
      'their log) -> Kafka -> projector (child process: binary COPY into the indexed tables for blocks seen for the ' +
      'first time, staged INSERT ON CONFLICT otherwise; balances and total supply summed per transaction; the next ' +
      "transaction writes its new rows beside the previous one's and commits after it) -> PostgreSQL, timed from " +
      'the follower spawn until every block is projected; raw COPY = the same rows (blocks, logs, transfers, ' +
      'balances, wallet transfer counts) copied with COPY (FORMAT binary), with the writer the projector uses, into a freshly migrated ' +
      'database, one table after the other; anvil, Kafka and PostgreSQL run on the same machine',
  };
  console.log(JSON.stringify(result, null, 2));
  await mkdir(join(ROOT, 'bench/results'), { recursive: true });
  await writeFile(join(ROOT, 'bench/results/backfill.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (process.env['BENCH_KEEP_LOGS'] !== 'true') rmSync(logDir, { recursive: true, force: true });
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  anvil.kill('SIGTERM');
  for (const name of dbs) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  const admin = kafka.admin();
  await admin
    .connect()
    .then(async () => {
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    })
    .catch(() => {})
    .finally(() => admin.disconnect());
}

function addCpu(a: ReturnType<typeof cpuSecondsBetween>, b: ReturnType<typeof cpuSecondsBetween>) {
  const byProcess = { ...a.byProcess };
  for (const [k, v] of Object.entries(b.byProcess)) byProcess[k] = round((byProcess[k] ?? 0) + v);
  return {
    byProcess,
    machineBusySeconds: round(a.machineBusySeconds + b.machineBusySeconds),
    machineIdleSeconds: round(a.machineIdleSeconds + b.machineIdleSeconds),
  };
}

function startApp(app: AppName, env: Record<string, string>): ChildProcess {
  const log = createWriteStream(join(logDir, `${app}.log`));
  const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE, app)}`] : [];
  const benchOptions = process.env['BENCH_NODE_OPTIONS'];
  // As the image runs them (from the app's bundle, built here) or from source through tsx; the
  // one launcher gives the flags they ship with, BENCH_NODE_OPTIONS after them, and jemalloc.
  const child = launchApp(app, {
    from: FROM,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      ...(benchOptions === undefined ? {} : { NODE_OPTIONS: benchOptions }),
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
    nodeArgs: profile,
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  children.push(child);
  return child;
}

async function stopApp(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function waitReady(opsPort: number, child: ChildProcess) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`service exited during start-up; see ${logDir}`);
    try {
      const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service on ${opsPort} not ready; see ${logDir}`);
}

/** Column types the raw COPY writes (those of the chain tables). */
type ColumnType =
  | 'bigint'
  | 'integer'
  | 'smallint'
  | 'bytea'
  | 'timestamptz'
  | 'numeric'
  | 'boolean'
  | 'text';

/** The rows of a table as text (bytea as hex, timestamps as Unix seconds), in primary-key order. */
async function readRows(pool: pg.Pool, table: (typeof PROJECTED_TABLES)[number]) {
  const info = await pool.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  const columns = info.rows.map((r) => r.column_name);
  const types = info.rows.map((r): ColumnType => {
    if (r.data_type.startsWith('timestamp')) return 'timestamptz';
    if (['bigint', 'integer', 'smallint', 'bytea', 'numeric', 'boolean', 'text'].includes(r.data_type)) {
      return r.data_type as ColumnType;
    }
    throw new Error(`${table}.${r.column_name}: no binary writer for ${r.data_type}`);
  });
  const select = info.rows
    .map((r, i) =>
      types[i] === 'bytea'
        ? `encode(${r.column_name}, 'hex') AS ${r.column_name}`
        : types[i] === 'timestamptz'
          ? `extract(epoch FROM ${r.column_name})::text AS ${r.column_name}`
          : `${r.column_name}::text AS ${r.column_name}`,
    )
    .join(', ');
  const res = await pool.query({ text: `SELECT ${select} FROM ${table} ORDER BY 1, 2, 3`, rowMode: 'array' });
  return { columns, types, rows: res.rows as (string | null)[][] };
}

/**
 * COPY ... (FORMAT binary) of rows read by readRows, with the binary writer the projector uses:
 * the raw rate is that of PostgreSQL ingesting the same rows the same way, without the pipeline.
 */
async function copyRawRows(
  client: pg.PoolClient,
  table: string,
  columns: string[],
  types: ColumnType[],
  rows: (string | null)[][],
) {
  await copyBinary(client, table, columns, function* (w) {
    let n = 0;
    for (const row of rows) {
      w.row(row.length);
      for (let i = 0; i < row.length; i++) {
        const v = row[i]!;
        if (v === null) {
          w.null();
          continue;
        }
        switch (types[i]!) {
          case 'bigint':
            w.int8(Number(v));
            break;
          case 'integer':
            w.int4(Number(v));
            break;
          case 'smallint':
            w.int2(Number(v));
            break;
          case 'bytea':
            w.hex(v);
            break;
          case 'timestamptz':
            w.timestampSeconds(Number(v));
            break;
          case 'numeric':
            w.numeric(v);
            break;
          case 'boolean':
            w.bool(v === 'true');
            break;
          case 'text':
            w.text(v);
            break;
        }
      }
      if (++n % 1000 === 0) yield;
    }
    yield;
  });
}

async function machine(dbUrl: string) {
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  const settings = await c.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes',
       'shared_buffers', 'max_wal_size', 'wal_level', 'work_mem', 'jit', 'checkpoint_timeout') ORDER BY name`,
  );
  const version = (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
  await c.end();
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(os.totalmem() / 1024 ** 3),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: version,
    postgresSettings: Object.fromEntries(
      settings.rows.map((r) => [r.name, r.unit ? `${r.setting} x ${r.unit}` : r.setting]),
    ),
    kafka: kafkaVersion(),
    anvil: safe(() => execFileSync(anvilBinary(), ['--version']).toString().split('\n')[0]!.trim()),
  };
}

/** The broker's version, from the jar on the running broker's class path (local servers), when found. */
function kafkaVersion(): string {
  return safe(() => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      const cmd = safe(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
      if (!Array.isArray(cmd) || !cmd.includes('kafka.Kafka')) continue;
      const cp = cmd[cmd.indexOf('-cp') + 1] ?? '';
      for (const dir of cp.split(':').map((p) => p.replace(/\/\*$/, ''))) {
        const jar = safe(() => readdirSync(dir).find((f) => /^kafka_[\d.]+-[\d.]+\.jar$/.test(f)));
        if (typeof jar === 'string') return jar.replace(/^kafka_[\d.]+-/, '').replace(/\.jar$/, '');
      }
    }
    return 'unknown';
  });
}

function safe<T>(f: () => T): T | string {
  try {
    return f();
  } catch {
    return 'unknown';
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

async function createDatabase(name: string): Promise<string> {
  await adminQuery(`CREATE DATABASE "${name}"`);
  dbs.push(name);
  const url = new URL(BASE_DB);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(sql: string) {
  const c = new pg.Client({ connectionString: BASE_DB });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function anvilBinary(): string {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;
  const fromRoot = createRequire(join(ROOT, 'package.json'));
  const fromWrapper = createRequire(fromRoot.resolve('@foundry-rs/anvil/package.json'));
  return join(
    dirname(fromWrapper.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`)),
    'bin',
    'anvil',
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      server.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function waitRpc(url: string) {
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`anvil did not start on ${url}`);
}
