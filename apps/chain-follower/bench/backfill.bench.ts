// Backfill benchmark: builds a chain with BENCH_LOGS ERC20 Transfer logs (BulkTransferEmitter) on a
// private anvil, backfills it end to end (follower -> Kafka -> projector -> indexed PostgreSQL), then
// measures the raw COPY rate of the same rows into the same (indexed) tables in a second database.
// Prints the figures and writes bench/results/backfill.json at the repo root. Measures; never fails on a time.
// Env: BENCH_LOGS (1000000), BENCH_LOGS_PER_TX (5000), DATABASE_URL, KAFKA_BROKERS.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createIdempotentProducer, createKafka, ensureTopics } from '@tributary/bus';
import { bulkTransferEmitterAbi } from '@tributary/contracts';
import { createPool, migrate } from '@tributary/db';
import { createDevnetClient, deployBulkTransferEmitter } from '@tributary/devnet';
import { createBlockConsumer, createBlockProjector } from '@tributary/projector';
import { createLogger, createMetrics } from '@tributary/runtime';
import { TOPICS } from '@tributary/schema';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { createChainFollower } from '../src/follow/createChainFollower.ts';
import { createHeadWatcher } from '../src/follow/createHeadWatcher.ts';
import { createRpc } from '../src/follow/createRpc.ts';
import { createBlockPublisher } from '../src/publish/createBlockPublisher.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOGS = Number(process.env['BENCH_LOGS'] ?? 1_000_000);
const PER_TX = Number(process.env['BENCH_LOGS_PER_TX'] ?? 5_000);
const BASE_DB = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
const BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');
const id = randomBytes(4).toString('hex');
const logger = createLogger('backfill-bench', process.env['LOG_LEVEL'] ?? 'warn');
const say = (msg: string, fields: object = {}) => console.log(JSON.stringify({ msg, ...fields }));

const port = await freePort();
const anvil = spawn(anvilBinary(), ['--port', String(port), '--silent', '--gas-limit', '200000000'], {
  stdio: 'ignore',
});
const dbs: string[] = [];
try {
  const rpcUrl = `http://127.0.0.1:${port}`;
  await waitRpc(rpcUrl);
  const client = createDevnetClient({ rpcUrl });
  const bulk = await deployBulkTransferEmitter(client);
  const buildStart = Date.now();
  for (let sent = 0; sent < LOGS; sent += PER_TX) {
    const count = Math.min(PER_TX, LOGS - sent);
    const first = `0x${(0x100000 + sent).toString(16).padStart(40, '0')}` as `0x${string}`;
    await client.writeContract({
      address: bulk,
      abi: bulkTransferEmitterAbi,
      functionName: 'emitTransfers',
      args: [first, BigInt(count), 1n],
      gas: BigInt(count * 2_600 + 100_000),
    });
  }
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  say('chain built', { logs: LOGS, blocks: head + 1, seconds: (Date.now() - buildStart) / 1000 });

  const dbUrl = await createDatabase(`bench_backfill_${id}`);
  await migrate(dbUrl);
  const pool = createPool({ connectionString: dbUrl, max: 6 });
  const kafka = createKafka({ brokers: BROKERS, clientId: `bench-${id}` });
  const topic = `bench-${id}.${TOPICS.blocks}`;
  await ensureTopics(kafka, [{ topic }]);
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const metrics = createMetrics('bench');
  const consumer = createBlockConsumer({
    kafka,
    topic,
    groupId: `bench-${id}`,
    projector: createBlockProjector({ pool, logger, metrics }),
    logger,
  });
  const heads = createHeadWatcher({ pollIntervalMs: 200, logger });
  const settings = {
    chainId: 31337,
    confirmations: 2,
    startBlock: 0,
    fetchTransactions: false,
    backfillFetchTransactions: false,
    fetchTraces: false,
    accountKinds: false,
    rangeBlocks: 50,
    maxRangeBlocks: 2_000,
    rpcConcurrency: 2,
    maxBatchBlocks: 200,
    headBatchBlocks: 20,
    reorgWindow: 64,
    progressIntervalMs: 5_000,
  };
  const follower = createChainFollower({
    rpc: createRpc({ url: rpcUrl, timeoutMs: 60_000 }),
    pool,
    publisher: createBlockPublisher({ producer, topic, compression: 'gzip' }),
    heads,
    logger: createLogger('chain-follower', 'info'),
    metrics,
    options: settings,
  });
  const started = Date.now();
  await consumer.start();
  const stop = new AbortController();
  const running = follower.run(stop.signal);
  let followerSeconds = 0;
  for (;;) {
    if (!followerSeconds && follower.status().checkpoint >= head)
      followerSeconds = (Date.now() - started) / 1000;
    const projected = await pool.query<{ n: string }>('SELECT count(*) AS n FROM logs');
    if (followerSeconds && Number(projected.rows[0]!.n) >= LOGS) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const endToEndSeconds = (Date.now() - started) / 1000;
  stop.abort();
  await running;
  await consumer.stop();
  await producer.disconnect();
  await heads.close();
  say('backfill done', { endToEndSeconds, logsPerSec: Math.round(LOGS / endToEndSeconds), followerSeconds });

  // Raw COPY of the same rows into the same tables (indexes included) of a fresh database.
  const copyUrl = await createDatabase(`bench_copy_${id}`);
  await migrate(copyUrl);
  const rawCopy: Record<string, { rows: number; seconds: number; rowsPerSec: number }> = {};
  for (const table of ['logs', 'transfers']) {
    const src = await pool.connect();
    const dst = new pg.Client({ connectionString: copyUrl });
    await dst.connect();
    const t0 = Date.now();
    await pipeline(
      src.query(copyTo(`COPY ${table} TO STDOUT`)),
      dst.query(copyFrom(`COPY ${table} FROM STDIN`)),
    );
    const seconds = (Date.now() - t0) / 1000;
    const rows = Number((await dst.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    rawCopy[table] = { rows, seconds, rowsPerSec: Math.round(rows / seconds) };
    src.release();
    await dst.end();
  }
  await pool.end();
  const result = {
    at: new Date().toISOString(),
    logs: LOGS,
    logsPerTx: PER_TX,
    blocks: head + 1,
    endToEnd: { seconds: endToEndSeconds, logsPerSec: Math.round(LOGS / endToEndSeconds) },
    followerOnly: { seconds: followerSeconds, logsPerSec: Math.round(LOGS / followerSeconds) },
    rawCopy,
    settings,
    note: 'end to end = follower (eth_getLogs + headers) -> Kafka (gzip) -> projector (COPY to staging + INSERT ON CONFLICT + balances) -> indexed PostgreSQL; one machine shared with the servers',
  };
  console.log(JSON.stringify(result, null, 2));
  await mkdir(join(ROOT, 'bench/results'), { recursive: true });
  await writeFile(join(ROOT, 'bench/results/backfill.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  anvil.kill('SIGTERM');
  for (const name of dbs) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
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
