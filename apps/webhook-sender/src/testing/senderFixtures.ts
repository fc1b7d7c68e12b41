// What the sender's end-to-end tests share: the real sender as a child process, and stream and
// delivery rows written through @tributary/db as the matcher writes them.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Pool } from '@tributary/db';
import { insertDelivery, insertStream, setDeliveryJobs } from '@tributary/db/streams';
import { type TestDatabase, getTestSettings } from '@tributary/testkit';
import { launchApp } from '@tributary/testkit/bench';
import { assignDeliveryJobs, enqueueAssignedDeliveries } from '@tributary/webhooks';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';

/**
 * Starts src/main.ts against the test servers, on its own queue and topic prefixes, with `env`
 * (concurrency, timeouts, retry schedule...) on top of the settings every test needs.
 */
export function startSenderProcess(opts: {
  databaseUrl: string;
  queuePrefix: string;
  topicPrefix: string;
  env: Record<string, string>;
}): ChildProcess {
  const s = getTestSettings();
  return launchApp('webhook-sender', {
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      REDIS_URL: s.redisUrl,
      KAFKA_BROKERS: s.kafkaBrokers.join(','),
      KAFKA_TOPIC_PREFIX: opts.topicPrefix,
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      WEBHOOK_QUEUE_PREFIX: opts.queuePrefix,
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      OPS_PORT: '0',
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
    stdout: 'inherit',
    stderr: 'inherit',
  });
}

/** Resolves with the exit code (null when killed by a signal) once the process has ended. */
export const exitOf = (p: ChildProcess) =>
  new Promise<number | null>((r) =>
    p.exitCode !== null || p.signalCode !== null ? r(p.exitCode) : p.once('exit', (code) => r(code)),
  );

/** Polls `probe` every 25 ms until it holds; throws after `timeoutMs`. */
export async function until(probe: () => boolean | Promise<boolean>, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** An account with this webhook secret; returns its id. */
export async function insertTestAccount(pool: Pool, webhookSecret: string): Promise<string> {
  const id = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    id,
    'a',
    webhookSecret,
  ]);
  return id;
}

/** A devnet stream of native transactions posting to `webhookUrl`; returns its id. */
export async function insertTestStream(
  pool: Pool,
  s: { accountId: string; webhookUrl: string; tag: string; maxRequestsPerSecond?: number },
): Promise<string> {
  const id = randomUUID();
  await insertStream(pool, {
    id,
    accountId: s.accountId,
    chainIds: [31337],
    config: {
      webhookUrl: s.webhookUrl,
      description: 'd',
      tag: s.tag,
      chainIds: ['0x7a69'],
      includeNativeTxs: true,
      ...(s.maxRequestsPerSecond !== undefined ? { maxRequestsPerSecond: s.maxRequestsPerSecond } : {}),
    },
  });
  return id;
}

/**
 * A pending unconfirmed delivery of block `blockNumber` (hash derived from it), timestamped
 * `blockTimestamp` (Unix seconds), to a stream; returns its id.
 */
export async function insertTestDelivery(
  pool: Pool,
  streamId: string,
  blockNumber: number,
  blockTimestamp = 1_700_000_000 + blockNumber,
): Promise<string> {
  const d = await insertDelivery(pool, {
    id: randomUUID(),
    streamId,
    chainId: 31337,
    blockNumber,
    blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
    blockTimestamp,
    confirmed: false,
    body: JSON.stringify({ confirmed: false, block: { number: String(blockNumber) }, retries: 0 }),
    status: 'pending',
    logsCount: 0,
    txsCount: 1,
  });
  return d.id;
}

/**
 * Enqueues deliveries as the matcher does: `jobId` is each one's job id alone; they share batch
 * jobs of `batchSize`, and each row names its job first (only that job may deliver it, and the
 * sender's relay checks that job exists).
 */
export async function enqueueTestDeliveries(
  pool: Pool,
  queue: Queue,
  items: readonly { deliveryId: string; jobId: string }[],
  batchSize?: number,
): Promise<void> {
  const jobIds = assignDeliveryJobs(
    items.map((i) => i.jobId),
    batchSize,
  );
  const named = items.map((i, n) => ({ deliveryId: i.deliveryId, jobId: jobIds[n] as string }));
  await setDeliveryJobs(pool, named);
  await enqueueAssignedDeliveries(queue, named);
}

/** The webhook queue under a test's own prefix (what the matcher enqueues to). */
export const openDeliveryQueue = (queuePrefix: string) =>
  openTestWebhookQueue(getTestSettings().redisUrl, queuePrefix);

/** Tears down what a test opened (any of it may be missing when set-up failed). */
export async function closeTestServers(t: {
  queue?: Queue;
  receiver?: Server;
  pool?: Pool;
  db?: TestDatabase;
}) {
  await t.queue?.obliterate({ force: true }).catch(() => undefined);
  await t.queue?.close();
  t.receiver?.closeAllConnections();
  await new Promise<void>((r) => (t.receiver ? t.receiver.close(() => r()) : r()));
  await t.pool?.end();
  await t.db?.drop();
}
