// Backfill through a provider's limits: the follower (a child process, as deployed) backfills a
// private anvil through the fault-injecting proxy at 100 ms latency per request, a cap of 10,000
// logs per eth_getLogs (the "query returned more than 10000 results. Try with this block range"
// error) and 25 calls/s (a batch counts each call, as providers bill them; above: HTTP 429 with
// Retry-After), then the same chain with no proxy. Prints and writes bench/results/rpc-limits-backfill.json.
//
// The limit: a backfill needs, at the least, one eth_getBlockByNumber per block (its hash, parent
// and time) and one eth_getLogs per range of at most 10,000 logs; the fewest such ranges over this
// chain are found greedily (optimal for contiguous ranges). So the most blocks per second that
// 25 calls/s allow is 25 × blocks / (blocks + fewest eth_getLogs calls). Latency does not bound
// the rate (calls overlap). Measured: blocks from the first call the follower makes to the
// checkpoint at the head, over that time. Measures; never passes or fails on a time.
// Env: BENCH_BLOCKS (1200), BENCH_RPS (25), BENCH_LATENCY_MS (100), BENCH_MAX_LOGS (10000),
// BENCH_FOLLOWER_<NAME> overrides one follower setting below; DATABASE_URL, KAFKA_BROKERS as usual.
import type { ChildProcess } from 'node:child_process';
import { bulkTransferEmitterAbi } from '@tributary/contracts';
import { createDevnetClient, deployBulkTransferEmitter } from '@tributary/devnet';
import {
  createBenchDatabase,
  envNumber,
  services,
  spawnApp,
  startAnvil,
  startFaultyRpc,
  stopChild,
  unique,
  writeResult,
} from '@tributary/testkit/bench';
import pg from 'pg';

const BLOCKS = envNumber('BENCH_BLOCKS', 1_200);
const RPS = envNumber('BENCH_RPS', 25);
const LATENCY_MS = envNumber('BENCH_LATENCY_MS', 100);
const MAX_LOGS = envNumber('BENCH_MAX_LOGS', 10_000);
const say = (msg: string, fields: object = {}) => console.log(JSON.stringify({ msg, ...fields }));

/** A bulk backfill (headers and logs: no stream reads transactions or traces; no eth_getCode), told the provider's rate; eth_getLogs ranges as by default (500 blocks to start). */
const FOLLOWER_ENV: Record<string, string> = {
  CHAIN_ID: '31337',
  CONFIRMATIONS: '0',
  FETCH_ACCOUNT_KINDS: 'false',
  RPC_CONCURRENCY: '4',
  MAX_BATCH_BLOCKS: '400',
  RPC_TIMEOUT_MS: '20000',
  POLL_INTERVAL_MS: '200',
  PROGRESS_INTERVAL_MS: '5000',
  LOG_LEVEL: 'warn',
};
for (const key of Object.keys(FOLLOWER_ENV)) {
  const override = process.env[`BENCH_FOLLOWER_${key}`];
  if (override !== undefined) FOLLOWER_ENV[key] = override;
}

/** Logs of the i-th mined block: mostly tens, a dense block (4,000) every 50 so that the cap matters. */
const logsOf = (i: number) => (i % 50 === 25 ? 4_000 : 20 + (i % 9) * 10);

const anvil = await startAnvil({ args: ['--gas-limit', '300000000'] });
const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [() => anvil.stop()];
try {
  const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  const bulk = await deployBulkTransferEmitter(client);
  let nonce = await client.getTransactionCount({ address: client.account.address, blockTag: 'pending' });
  let last: `0x${string}` = '0x';
  const buildStart = Date.now();
  for (let i = 0; i < BLOCKS; i++) {
    const count = logsOf(i);
    last = await client.writeContract({
      address: bulk,
      abi: bulkTransferEmitterAbi,
      functionName: 'emitTransfers',
      args: [`0x${(0x100000 + i * 10_000).toString(16).padStart(40, '0')}`, BigInt(count), 1n],
      gas: BigInt(count * 2_600 + 100_000),
      nonce: nonce++,
    });
  }
  await client.waitForTransactionReceipt({ hash: last, timeout: 300_000 });
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  const perBlock = await logsPerBlock(anvil.rpcUrl, head);
  const logs = perBlock.reduce((a, b) => a + b, 0);
  say('chain built', { blocks: head + 1, logs, seconds: (Date.now() - buildStart) / 1000 });

  // The limit these provider settings allow on this chain.
  const blocks = head + 1;
  const fewestGetLogs = fewestRanges(perBlock, MAX_LOGS);
  const fewestCalls = blocks + fewestGetLogs;
  const limitBlocksPerSec = (RPS * blocks) / fewestCalls;
  const limit = {
    how: `${RPS} calls/s x ${blocks} blocks / (${blocks} eth_getBlockByNumber + ${fewestGetLogs} eth_getLogs of at most ${MAX_LOGS} logs)`,
    callsPerSecond: RPS,
    fewestCalls,
    fewestGetLogs,
    blocksPerSec: round(limitBlocksPerSec),
    logsPerSec: Math.round((limitBlocksPerSec * logs) / blocks),
  };
  say('limit', limit);

  const proxy = await startFaultyRpc({
    upstream: anvil.rpcUrl,
    faults: {
      latencyMs: LATENCY_MS,
      requestsPerSecond: RPS,
      logsCap: { style: 'more-than-results-hint', maxLogs: MAX_LOGS },
    },
  });
  cleanups.push(() => proxy.close());
  const limited = await backfill(
    'through the proxy',
    proxy.url,
    head,
    { RPC_REQUESTS_PER_SECOND: String(RPS) },
    () => proxy.stats.requestTimes[0],
  );
  const calls = Object.values(proxy.stats.calls).reduce((a, b) => a + b, 0);
  const measured = {
    ...limited,
    blocksPerSec: round(limited.blocks / limited.seconds),
    logsPerSec: Math.round(logs / limited.seconds),
    calls,
    callsByMethod: proxy.stats.calls,
    faults: proxy.stats.faults,
  };
  const percentOfLimit = round((100 * measured.blocksPerSec) / limit.blocksPerSec);
  say('through the provider limits', { measured, percentOfLimit });

  const plain = await backfill('no proxy', anvil.rpcUrl, head, {}, () => undefined);
  const noProxy = {
    ...plain,
    blocksPerSec: round(plain.blocks / plain.seconds),
    logsPerSec: Math.round(logs / plain.seconds),
  };
  say('no proxy', noProxy);

  const path = writeResult('rpc-limits-backfill', {
    chain: { blocks, logs, denseBlockEvery: 50, denseBlockLogs: 4_000 },
    provider: {
      latencyMs: LATENCY_MS,
      callsPerSecond: RPS,
      maxLogsPerGetLogs: MAX_LOGS,
      capError: 'more-than-results-hint',
    },
    follower: FOLLOWER_ENV,
    limit,
    measured,
    percentOfLimit,
    noProxy,
  });
  say('written', {
    path,
    limitBlocksPerSec: limit.blocksPerSec,
    measuredBlocksPerSec: measured.blocksPerSec,
    percentOfLimit,
  });
} finally {
  for (const child of children) await stopChild(child);
  for (const c of cleanups.reverse()) await c().catch(() => {});
}

/** Runs the follower (a child process) over blocks 0..head at rpcUrl into a fresh database and topic; times it. */
async function backfill(
  label: string,
  rpcUrl: string,
  head: number,
  extraEnv: Record<string, string>,
  firstCallAt: () => number | undefined,
) {
  const db = await createBenchDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  const spawnedAt = Date.now();
  const follower = spawnApp('chain-follower', {
    ...FOLLOWER_ENV,
    ...extraEnv,
    RPC_URL: rpcUrl,
    DATABASE_URL: db.url,
    KAFKA_BROKERS: services.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: `${unique('bench')}.`,
    OPS_PORT: '0',
  });
  children.push(follower);
  let checkpoint = -1;
  let lastSaid = Date.now();
  while (checkpoint < head) {
    if (follower.exitCode !== null)
      throw new Error(`${label}: the follower exited with ${follower.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
    const { rows } = await pool.query<{ n: string }>(
      'SELECT block_number AS n FROM follower_checkpoints WHERE chain_id = 31337',
    );
    checkpoint = rows[0] ? Number(rows[0].n) : -1;
    if (Date.now() - lastSaid > 5_000) {
      say(label, { checkpoint, head });
      lastSaid = Date.now();
    }
  }
  const endedAt = Date.now();
  await stopChild(follower);
  await pool.end();
  await db.drop();
  // From the follower's first call (the proxy saw it), else from its start.
  const startedAt = firstCallAt() ?? spawnedAt;
  return {
    blocks: head + 1,
    seconds: (endedAt - startedAt) / 1000,
    secondsFromSpawn: (endedAt - spawnedAt) / 1000,
  };
}

/** Logs per block 0..head, straight from the node. */
async function logsPerBlock(rpcUrl: string, head: number): Promise<number[]> {
  const counts = new Array<number>(head + 1).fill(0);
  for (let from = 0; from <= head; from += 100) {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getLogs',
        params: [
          { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${Math.min(head, from + 99).toString(16)}` },
        ],
      }),
    });
    const { result } = (await response.json()) as { result: { blockNumber: string }[] };
    for (const l of result) counts[Number(l.blockNumber)]!++;
  }
  return counts;
}

/** The fewest contiguous ranges of at most `max` logs covering every block (greedy is optimal here). */
function fewestRanges(perBlock: readonly number[], max: number): number {
  let ranges = 0;
  let inRange = Number.POSITIVE_INFINITY;
  for (const n of perBlock) {
    if (inRange + n > max) {
      ranges++;
      inRange = n;
    } else inRange += n;
  }
  return ranges;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
