import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createPool } from '@tributary/db';
import { DELIVERY_BATCH_SIZE, enqueueDeliveries } from '@tributary/webhooks';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import { cpuShares, cpuSnapshot } from './cpuShares.ts';
import {
  createBenchDatabase,
  envNumber,
  serviceNodeOptions,
  services,
  sleep,
  spawnApp,
  spawnNode,
  stopChild,
  unique,
  writeResult,
} from '@tributary/testkit/bench';

/**
 * Deliveries per second from N real webhook-sender processes to a fast receiver in its own
 * process on 127.0.0.1 (phase "healthy"), then with one endpoint that never answers taking a
 * share of the jobs (phase "one endpoint timing out": healthy deliveries per second). A feeder
 * keeps the BullMQ queue stocked with stored deliveries, enqueued as the matcher enqueues them
 * (batch jobs). Counts come from the receiver; the CPU each part used (senders, receiver, driver,
 * PostgreSQL backends, Redis) is recorded per phase.
 *
 * BENCH_SECONDS (120) per phase, BENCH_SENDERS (2), BENCH_CONCURRENCY (64 jobs per process),
 * BENCH_STREAMS (50 healthy streams), BENCH_HANG_SHARE (0.1 of the deliveries in phase 2),
 * BENCH_TIMEOUT_MS (sender webhook timeout in phase 2, 2000), BENCH_BACKLOG (4000 deliveries
 * waiting), BENCH_JOB_BATCH (deliveries per job, the matcher's 50), BENCH_SENDER_NODE_OPTIONS.
 */
const seconds = envNumber('BENCH_SECONDS', 120);
const senders = envNumber('BENCH_SENDERS', 2);
const concurrency = envNumber('BENCH_CONCURRENCY', 64);
const streamCount = envNumber('BENCH_STREAMS', 50);
const hangShare = envNumber('BENCH_HANG_SHARE', 0.1);
const timeoutMs = envNumber('BENCH_TIMEOUT_MS', 2_000);
const warmupSeconds = Math.min(5, Math.max(1, Math.floor(seconds / 6)));
const backlog = envNumber('BENCH_BACKLOG', 4_000);
// Node options of the sender processes: the flags the sender ships with (serviceNodeOptions), then
// BENCH_SENDER_NODE_OPTIONS, which win; launchApp gives them.
const benchSenderOptions = process.env['BENCH_SENDER_NODE_OPTIONS'];
const senderNodeOptions = serviceNodeOptions('webhook-sender', benchSenderOptions);
// Deliveries per queued job (the matcher's default; 1 is one job per delivery).
const jobBatch = envNumber('BENCH_JOB_BATCH', DELIVERY_BATCH_SIZE);
const batch = 500;

const benchDir = fileURLToPath(new URL('./', import.meta.url));

// One transfer-sized body (about 1.3 KB), as the matcher stores them. Serialized once per stream
// with markers where the block number and hash go, so the feeder spends little CPU per delivery.
const NUMBER_MARK = '\u0000n';
const HASH_MARK = '\u0000h';
const bodyParts = (streamId: string): [string, string, string] => {
  const json = JSON.stringify({
    confirmed: false,
    chainId: '0x7a69',
    abi: [],
    streamId,
    tag: 'bench',
    retries: 0,
    block: { number: NUMBER_MARK, hash: HASH_MARK, timestamp: '1700000000' },
    logs: [
      {
        logIndex: '0',
        transactionHash: `0x${'ab'.repeat(32)}`,
        address: `0x${'cd'.repeat(20)}`,
        data: `0x${'00'.repeat(31)}64`,
        topic0: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        topic1: `0x${'00'.repeat(12)}${'11'.repeat(20)}`,
        topic2: `0x${'00'.repeat(12)}${'22'.repeat(20)}`,
        topic3: null,
      },
    ],
    txs: [],
    txsInternal: [],
    erc20Transfers: [
      {
        transactionHash: `0x${'ab'.repeat(32)}`,
        logIndex: '0',
        contract: `0x${'cd'.repeat(20)}`,
        from: `0x${'11'.repeat(20)}`,
        to: `0x${'22'.repeat(20)}`,
        value: '100',
        tokenName: 'Bench',
        tokenSymbol: 'BEN',
        tokenDecimals: '6',
        valueWithDecimals: '0.0001',
        possibleSpam: false,
      },
    ],
    erc20Approvals: [],
    nftTransfers: [],
    nftApprovals: { ERC721: [], ERC1155: [] },
    nftTokenApprovals: [],
    nativeBalances: [],
  });
  const [head, rest] = json.split(JSON.stringify(NUMBER_MARK).slice(1, -1)) as [string, string];
  const [middle, tail] = rest.split(JSON.stringify(HASH_MARK).slice(1, -1)) as [string, string];
  return [head, middle, tail];
};
const body = (parts: [string, string, string], n: number, hash: Buffer) =>
  `${parts[0]}${n}${parts[1]}0x${hash.toString('hex')}${parts[2]}`;

async function main() {
  const db = await createBenchDatabase();
  const pool = createPool({ connectionString: db.url, max: 4 });
  const queuePrefix = unique('qbench');
  const queue = openTestWebhookQueue(services.redisUrl, queuePrefix);
  const children: ReturnType<typeof spawnNode>[] = [];
  const maxLifetime = seconds * 2 + 120;
  let port = 0;
  let hangPort = 0;
  const receiver = spawnNode(
    benchDir,
    'receiver.ts',
    {},
    (line) => {
      ({ port, hangPort } = JSON.parse(line) as { port: number; hangPort: number });
    },
    [String(maxLifetime)],
  );
  children.push(receiver);
  const stats = async () =>
    (await (await fetch(`http://127.0.0.1:${port}/__stats`)).json()) as {
      ok: number;
      hang: number;
      at: number;
    };

  try {
    while (port === 0) await sleep(50);
    const accountId = randomUUID();
    await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
      accountId,
      'bench',
      'secret',
    ]);
    const healthy: string[] = [];
    for (let i = 0; i < streamCount; i++) healthy.push(randomUUID());
    const hanging = randomUUID();
    // The timing-out endpoint is another origin (another tenant's receiver), on the receiver's second port.
    for (const [id, url] of [
      ...healthy.map((id, i) => [id, `http://127.0.0.1:${port}/ok/${i}`]),
      [hanging, `http://127.0.0.1:${hangPort}/hang/0`],
    ] as [string, string][]) {
      const config = {
        webhookUrl: url,
        description: 'bench',
        tag: 'bench',
        chainIds: ['0x7a69'],
      };
      await pool.query('INSERT INTO streams (id, account_id, config, chain_ids) VALUES ($1, $2, $3, $4)', [
        id,
        accountId,
        JSON.stringify(config),
        [31337],
      ]);
    }

    let n = 0;
    let hangPart = 0;
    let feeding = true;
    let fed = 0;
    const partsOf = new Map([...healthy, hanging].map((id) => [id, bodyParts(id)]));
    // Keeps `backlog` jobs waiting: stored deliveries first, then their jobs through the matcher's
    // enqueue call (one pipelined round trip). Two loops overlap one's PostgreSQL insert with the
    // other's enqueue.
    const feedLoop = async () => {
      while (feeding) {
        // Waiting jobs, counted as full batches: the parked members of phase 2 wait as delayed jobs.
        const waiting = (await queue.getWaitingCount()) * jobBatch;
        if (waiting > backlog) {
          await sleep(20);
          continue;
        }
        const ids: string[] = [];
        const streams: string[] = [];
        const bodies: string[] = [];
        const hashes: Buffer[] = [];
        for (let i = 0; i < batch; i++) {
          const streamId =
            hangPart > 0 && i % Math.round(1 / hangPart) === 0 ? hanging : healthy[n % healthy.length]!;
          n++;
          const hash = randomBytes(32);
          ids.push(randomUUID());
          streams.push(streamId);
          bodies.push(body(partsOf.get(streamId)!, n, hash));
          hashes.push(hash);
        }
        await pool.query(
          `INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, block_time, confirmed, body, status)
           SELECT id, s, 31337, 1, h, now(), false, b, 'pending' FROM unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::text[]) AS t(id, s, h, b)`,
          [ids, streams, hashes, bodies],
        );
        await enqueueDeliveries(
          queue,
          ids.map((id) => ({ deliveryId: id, jobId: id })),
          jobBatch,
        );
        fed += batch;
      }
    };
    const feeder = Promise.all([feedLoop(), feedLoop()]);
    while (fed < backlog) await sleep(50);

    const senderEnv = {
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: String(Math.min(40, concurrency)),
      REDIS_URL: services.redisUrl,
      KAFKA_BROKERS: services.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: `${queuePrefix}.`,
      WEBHOOK_QUEUE_PREFIX: queuePrefix,
      SENDER_CONCURRENCY: String(concurrency),
      WEBHOOK_TIMEOUT_MS: String(timeoutMs),
      // Failed attempts come back after the run; the timing-out stream must not leave the run by going to error.
      RETRY_SCHEDULE_MS: '3600000',
      SUCCESS_RATE_THRESHOLD: '0',
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      OPS_PORT: '0',
      LOG_LEVEL: 'error',
      ...(benchSenderOptions === undefined ? {} : { NODE_OPTIONS: benchSenderOptions }),
    };
    for (let i = 0; i < senders; i++) children.push(spawnApp('webhook-sender', senderEnv));
    const redis = await queue.client;
    const cpu = () =>
      cpuSnapshot({
        parts: {
          receiver: [receiver.pid ?? 0],
          senders: children.slice(1).map((c) => c.pid ?? 0),
        },
        pool,
        database: new URL(db.url).pathname.slice(1),
        redis,
      });

    const measure = async (label: string) => {
      await sleep(warmupSeconds * 1000);
      const cpuBefore = await cpu();
      const a = await stats();
      const perSecond: number[] = [];
      const waitingJobs: number[] = [];
      let prev = a;
      const end = Date.now() + (seconds - warmupSeconds) * 1000;
      while (Date.now() < end) {
        await sleep(1000);
        const s = await stats();
        perSecond.push(Math.round(((s.ok - prev.ok) * 1000) / (s.at - prev.at)));
        waitingJobs.push(await queue.getWaitingCount());
        prev = s;
      }
      const b = prev;
      const cpuCores = cpuShares(cpuBefore, await cpu());
      const rate = ((b.ok - a.ok) * 1000) / (b.at - a.at);
      const hangRate = ((b.hang - a.hang) * 1000) / (b.at - a.at);
      console.log(
        `${label}: ${rate.toFixed(0)} healthy deliveries/s over ${((b.at - a.at) / 1000).toFixed(0)} s (${hangRate.toFixed(1)} timing-out requests/s); per second min ${Math.min(...perSecond)} max ${Math.max(...perSecond)}; jobs waiting min ${Math.min(...waitingJobs)} (0 = the feeder, not the senders, was the limit)`,
      );
      // CPU per healthy delivery, per part: where the two cores go.
      const cpuMicrosecondsPerDelivery = Object.fromEntries(
        Object.entries(cpuCores).map(([part, cores]) => [
          part,
          Math.round((cores * 1e6) / Math.max(rate, 1)),
        ]),
      );
      console.log(
        `  cpu cores: ${Object.entries(cpuCores)
          .map(([part, cores]) => `${part} ${cores.toFixed(2)}`)
          .join(', ')}`,
      );
      return {
        healthyDeliveriesPerSecond: Math.round(rate),
        timingOutRequestsPerSecond: Number(hangRate.toFixed(1)),
        measuredSeconds: Number(((b.at - a.at) / 1000).toFixed(1)),
        cpuCores,
        cpuMicrosecondsPerDelivery,
        perSecond,
        waitingJobs,
      };
    };

    // Services start (module loading, connections) before the clock runs.
    const startDeadline = Date.now() + 120_000;
    while ((await stats()).ok === 0 && Date.now() < startDeadline) await sleep(200);
    const healthyPhase = await measure('phase 1 (all endpoints healthy)');
    hangPart = hangShare;
    const hangPhase = await measure(
      `phase 2 (one endpoint times out after ${timeoutMs} ms, ${hangShare * 100}% of jobs)`,
    );
    feeding = false;
    await feeder;

    const exits = [];
    for (const c of children.slice(1)) exits.push(await stopChild(c, 20_000));
    const delivered = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'`,
    );
    const outcomes = await pool.query<{ outcome: string; n: string }>(
      `SELECT coalesce(error, 'HTTP ' || status_code) AS outcome, count(*) AS n FROM delivery_attempts GROUP BY 1 ORDER BY 2 DESC`,
    );
    const attemptsByOutcome = Object.fromEntries(outcomes.rows.map((r) => [r.outcome, Number(r.n)]));
    console.log('attempts by outcome', attemptsByOutcome);
    const hangRows = await pool.query<{ status: string; attempts: number; n: string }>(
      'SELECT status, attempts, count(*) AS n FROM deliveries WHERE stream_id = $1 GROUP BY 1, 2',
      [hanging],
    );
    console.log('timing-out stream deliveries', hangRows.rows);
    const result = {
      attemptsByOutcome,
      params: {
        seconds,
        senders,
        concurrency,
        streams: streamCount,
        hangShare,
        timeoutMs,
        warmupSeconds,
        backlog,
        maxLifetime,
        senderNodeOptions,
        jobBatch,
      },
      targets: { healthyDeliveriesPerSecond: 5_000, shareKeptWithTimingOutEndpoint: 0.9 },
      healthy: healthyPhase,
      oneEndpointTimingOut: hangPhase,
      // What one tenant's hanging receiver leaves the others, in the same run.
      shareKeptWithTimingOutEndpoint: Number(
        (hangPhase.healthyDeliveriesPerSecond / Math.max(1, healthyPhase.healthyDeliveriesPerSecond)).toFixed(
          3,
        ),
      ),
      deliveredRowsAtEnd: Number(delivered.rows[0]?.n ?? 0),
      senderExitCodes: exits,
    };
    console.log(
      `healthy deliveries with one endpoint timing out: ${(result.shareKeptWithTimingOutEndpoint * 100).toFixed(1)}% of the healthy phase's (target >= 90%)`,
    );
    console.log(
      `written ${writeResult(process.env['BENCH_RESULT_NAME'] ?? 'webhook-delivery-throughput', result)}`,
    );
  } finally {
    for (const c of children) await stopChild(c, 20_000);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await pool.end();
    await db.drop();
  }
}

await main();
