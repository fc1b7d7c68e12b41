import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPool } from '@tributary/db';
import { createAccountWithKey } from '@tributary/db/accounts';
import { enqueueDeliveries } from '@tributary/webhooks';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import {
  createBenchDatabase,
  cpuSnapshot,
  envNumber,
  freePort,
  percentile,
  services,
  sleep,
  spawnApp,
  type AppName,
  stopChild,
  unique,
  writeResult,
} from '@tributary/testkit/bench';
import { readMetric } from '../src/harness/readMetric.ts';

/**
 * Throughput of one process of the webhook-sender and of the gateway, then of two on the same
 * servers (README, Operations: scaling). Senders: after a warm-up batch, BENCH_DELIVERIES stored
 * deliveries are enqueued at once, and the clock runs until a receiver in this process has had each
 * one (a webhook-id received twice is counted). Gateways: BENCH_CONNECTIONS clients in a closed
 * loop, spread over the processes, on the data interface for BENCH_SECONDS after a warm-up. Each
 * figure comes with what each process did, the cores the processes used and how busy the machine
 * was. Measures only: it exits 0 whatever the figures. Writes bench/results/scaling.json.
 *
 * BENCH_DELIVERIES (20000), BENCH_CONCURRENCY (32 jobs per sender process), BENCH_CONNECTIONS
 * (32), BENCH_SECONDS (20).
 */
const deliveries = envNumber('BENCH_DELIVERIES', 20_000);
const concurrency = envNumber('BENCH_CONCURRENCY', 32);
const connections = envNumber('BENCH_CONNECTIONS', 32);
const seconds = envNumber('BENCH_SECONDS', 20);

/** Starts `count` processes of an app, each on ports of its own; resolves once each is ready. */
async function startProcesses(app: AppName, count: number, env: Record<string, string>) {
  const started = [];
  for (let i = 1; i <= count; i++) {
    const ops = await freePort();
    const http = await freePort();
    const child = spawnApp(app, {
      ...env,
      KAFKA_CLIENT_ID: unique(`bench-${app}-${i}`),
      OPS_PORT: String(ops),
      HTTP_PORT: String(http),
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
    });
    started.push({ child, ops, url: `http://127.0.0.1:${http}` });
  }
  for (const { child, ops } of started) {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${app} exited (${child.exitCode}) before it was ready`);
      const ready = await fetch(`http://127.0.0.1:${ops}/readyz`)
        .then(async (r) => {
          await r.arrayBuffer();
          return r.ok;
        })
        .catch(() => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`${app} not ready within 120 s`);
      await sleep(250);
    }
  }
  return started;
}

const pidsOf = (processes: { child: { pid?: number } }[]) => processes.map((p) => p.child.pid ?? 0);

/** What each sender process counted as delivered (its own /metrics). */
const deliveredBy = (processes: { ops: number }[]) =>
  Promise.all(
    processes.map((p) => readMetric(p.ops, 'tributary_webhook_attempts_total', { outcome: 'delivered' })),
  );

/**
 * Between two snapshots: the cores the service processes used, and how busy the whole machine was
 * (1: every core; then the figures say what the machine, not the service, allowed).
 */
type CpuSnapshot = ReturnType<typeof cpuSnapshot>;
function cpuUse(before: CpuSnapshot, after: CpuSnapshot, pids: number[], seconds: number) {
  const spent = (s: CpuSnapshot) => pids.reduce((sum, pid) => sum + (s.processes.get(pid)?.seconds ?? 0), 0);
  const busy = after.busySeconds - before.busySeconds;
  return {
    serviceCores: Number(((spent(after) - spent(before)) / seconds).toFixed(2)),
    machineBusyShare: Number((busy / (busy + after.idleSeconds - before.idleSeconds)).toFixed(2)),
  };
}

async function main() {
  const db = await createBenchDatabase();
  const pool = createPool({ connectionString: db.url, max: 4 });
  const common = {
    DATABASE_URL: db.url,
    REDIS_URL: services.redisUrl,
    KAFKA_BROKERS: services.kafkaBrokers,
    NODE_ENV: 'test',
  };
  // The webhook receiver: counts each delivery's webhook-id.
  const received = new Map<string, number>();
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      res.end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const { key, accountId } = await createAccountWithKey(pool, { accountName: 'bench' });

  const streamIds = Array.from({ length: 20 }, () => randomUUID());
  for (const [i, id] of streamIds.entries()) {
    const config = {
      webhookUrl: `${receiverUrl}/${i}`,
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
  // The data interface answers for followed chains only.
  await pool.query(
    `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES (31337, 0, '\\x00')`,
  );

  /** Stores `n` pending deliveries, enqueues them, waits for each: the seconds from enqueue to the last. */
  async function deliverAll(queue: Queue, n: number) {
    const ids = Array.from({ length: n }, () => randomUUID());
    await pool.query(
      `INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, block_time, confirmed, body, status)
       SELECT id, ($2::uuid[])[1 + n % $3::int], 31337, 1, decode(md5(id::text) || md5(id::text), 'hex'), now(), false,
              '{"confirmed":false,"chainId":"0x7a69","logs":[]}', 'pending'
       FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n)`,
      [ids, streamIds, streamIds.length],
    );
    received.clear();
    const t0 = performance.now();
    await enqueueDeliveries(
      queue,
      ids.map((id) => ({ deliveryId: id, jobId: id })),
    );
    const deadline = Date.now() + 300_000;
    while (received.size < n && Date.now() < deadline) await sleep(10);
    return (performance.now() - t0) / 1000;
  }

  /** Deliveries per second of `count` sender processes, and how many each one sent. */
  async function senders(count: number) {
    const queuePrefix = unique('scaling');
    const processes = await startProcesses('webhook-sender', count, {
      ...common,
      KAFKA_TOPIC_PREFIX: `${queuePrefix}.`,
      WEBHOOK_QUEUE_PREFIX: queuePrefix,
      SENDER_CONCURRENCY: String(concurrency),
      DATABASE_POOL_SIZE: String(Math.min(40, concurrency)),
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      // The bench enqueues the jobs: the outbox relay is left out of the timing.
      RELAY_GRACE_MS: '3600000',
    });
    const queue = openTestWebhookQueue(services.redisUrl, queuePrefix);
    await deliverAll(queue, 2_000); // warm-up: connections open, code paths compiled
    const before = await deliveredBy(processes);
    const cpuBefore = cpuSnapshot();
    const elapsed = await deliverAll(queue, deliveries);
    const cpu = cpuUse(cpuBefore, cpuSnapshot(), pidsOf(processes), elapsed);
    await sleep(1_000); // a delivery sent twice would arrive by now
    const after = await deliveredBy(processes);
    await Promise.all(processes.map((p) => stopChild(p.child)));
    await queue.close();
    const result = {
      processes: count,
      deliveries,
      received: received.size,
      sentTwice: [...received.values()].filter((n) => n > 1).length,
      seconds: Number(elapsed.toFixed(2)),
      deliveriesPerSecond: Math.round(received.size / elapsed),
      deliveredBySender: after.map((n, i) => n - before[i]!),
      ...cpu,
    };
    console.log(`webhook-sender x${count}: ${JSON.stringify(result)}`);
    return result;
  }

  /** Requests per second of `count` gateway processes under a closed loop of `connections` clients. */
  async function gateways(count: number) {
    const processes = await startProcesses('gateway', count, {
      ...common,
      RATE_LIMIT_PER_SECOND: '0',
      CURSOR_SECRET: 'bench-cursor-secret-scaling',
    });
    const path = `/api/v2.2/0x${'11'.repeat(20)}/erc20/transfers?chain=0x7a69&limit=10`;
    const latencies: number[] = [];
    let errors = 0;
    let firstError = '';
    let measuring = false;
    let running = true;
    const client = async (i: number) => {
      const url = `${processes[i % count]!.url}${path}`;
      while (running) {
        const t = performance.now();
        const res = await fetch(url, { headers: { 'x-api-key': key } }).catch((e: Error) => e);
        const body = res instanceof Error ? res.message : `${res.status} ${await res.text()}`;
        if (!measuring) continue;
        if (body.startsWith('200 ')) latencies.push(performance.now() - t);
        else {
          errors++;
          firstError ||= body.slice(0, 300);
        }
      }
    };
    const clients = Array.from({ length: connections }, (_, i) => client(i));
    await sleep(3_000); // warm-up: connections open, code paths compiled
    measuring = true;
    const t0 = performance.now();
    const cpuBefore = cpuSnapshot();
    await sleep(seconds * 1000);
    measuring = false;
    const ms = performance.now() - t0;
    const cpu = cpuUse(cpuBefore, cpuSnapshot(), pidsOf(processes), ms / 1000);
    running = false;
    await Promise.all(clients);
    const requestsByGateway = await Promise.all(
      processes.map((p) => readMetric(p.ops, 'tributary_gateway_http_request_duration_seconds_count')),
    );
    await Promise.all(processes.map((p) => stopChild(p.child)));
    latencies.sort((a, b) => a - b);
    const result = {
      processes: count,
      connections,
      seconds: Number((ms / 1000).toFixed(1)),
      requestsPerSecond: Math.round((latencies.length * 1000) / ms),
      p50Ms: Number(percentile(latencies, 50).toFixed(1)),
      p99Ms: Number(percentile(latencies, 99).toFixed(1)),
      errors,
      ...(firstError ? { firstError } : {}),
      requestsByGateway,
      ...cpu,
    };
    console.log(`gateway x${count}: ${JSON.stringify(result)}`);
    return result;
  }

  try {
    const sender = [await senders(1), await senders(2)];
    const gateway = [await gateways(1), await gateways(2)];
    const speedup = (a: number, b: number) => Number((b / a).toFixed(2));
    const path = writeResult('scaling', {
      params: { deliveries, concurrency, connections, seconds },
      webhookSender: sender,
      gateway,
      speedupWithTwo: {
        webhookSender: speedup(sender[0]!.deliveriesPerSecond, sender[1]!.deliveriesPerSecond),
        gateway: speedup(gateway[0]!.requestsPerSecond, gateway[1]!.requestsPerSecond),
      },
    });
    console.log(`written to ${path}`);
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await pool.end();
    await db.drop();
  }
}

await main();
