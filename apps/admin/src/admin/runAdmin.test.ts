import { TOPICS } from '@tributary/schema';
import { execFile } from 'node:child_process';
import { createDeadLetters, createProducer, createKafka, ensureTopics } from '@tributary/bus';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '@tributary/db';
import { advanceBackfill, getBackfillRequest, listOpenBackfills, requestBackfill } from '@tributary/db/chain';
import {
  addStreamAddresses,
  insertDelivery,
  insertStream,
  recordStreamFailures,
  setDeliveryStatus,
  setStreamStatus,
} from '@tributary/db/streams';
import {
  createTestDatabase,
  freePort,
  getTestSettings,
  type TestDatabase,
  uniqueName,
} from '@tributary/testkit';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_USAGE } from './runAdmin.ts';

// Two accounts and three streams on the real PostgreSQL, deliveries in every status, and the
// real Redis queue: the admin command run as an operator runs it, its output and exit code.
const settings = getTestSettings();
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let env: NodeJS.ProcessEnv;
const queuePrefix = uniqueName('admin');
const accountA = randomUUID();
const accountB = randomUUID();
const active = randomUUID();
const paused = randomUUID();
const errored = randomUUID();
const ids = { pending: randomUUID(), held: randomUUID(), failed: randomUUID(), delivered: randomUUID() };
const addressA = `0x${'a'.repeat(40)}`;
const addressB = `0x${'b'.repeat(40)}`;

const stream = (id: string, accountId: string, tag: string) =>
  insertStream(pool, {
    id,
    accountId,
    chainIds: [31337],
    config: { webhookUrl: `http://127.0.0.1:9/${tag}`, description: 'd', tag, chainIds: ['0x7a69'] },
  });
const delivery = (id: string, streamId: string, n: number, status: 'pending' | 'held') =>
  insertDelivery(pool, {
    id,
    streamId,
    chainId: 31337,
    blockNumber: n,
    blockHash: `0x${n.toString(16).padStart(64, '0')}`,
    blockTimestamp: 1_700_000_000 + n,
    confirmed: false,
    body: JSON.stringify({
      chainId: '0x7a69',
      confirmed: false,
      block: { number: String(n) },
      logs: [],
      txs: [],
    }),
    status,
    logsCount: 0,
    txsCount: 0,
  });

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 2 });
  for (const [id, name] of [
    [accountA, 'a'],
    [accountB, 'b'],
  ] as const)
    await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [id, name, 's']);
  await stream(active, accountA, 'first');
  await stream(paused, accountA, 'second');
  await stream(errored, accountB, 'third');
  await setStreamStatus(pool, accountA, paused, 'paused', '');
  await recordStreamFailures(pool, errored, 100, 70); // its endpoint kept failing
  await addStreamAddresses(pool, active, [addressA, addressB]);
  await delivery(ids.pending, active, 1, 'pending');
  await delivery(ids.failed, active, 2, 'pending');
  await setDeliveryStatus(pool, ids.failed, 'failed');
  await delivery(ids.delivered, active, 3, 'pending');
  await setDeliveryStatus(pool, ids.delivered, 'delivered');
  await delivery(ids.held, errored, 1, 'held');
  queue = openTestWebhookQueue(settings.redisUrl, queuePrefix);
  env = { DATABASE_URL: db.url, REDIS_URL: settings.redisUrl, WEBHOOK_QUEUE_PREFIX: queuePrefix };
}, 120_000);

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await pool?.end();
  await db?.drop();
});

/** Runs the command as a user would, in its own process. */
function admin(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/admin.ts', ...args],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { PATH: process.env['PATH'] ?? '', ...env, ...extraEnv },
        timeout: 60_000,
      },
      (err, stdout, stderr) => resolve({ status: err ? Number(err.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('admin streams list', () => {
  it('lists every stream across accounts with its waiting deliveries', async () => {
    const run = await admin(['streams', 'list', '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        id: active,
        accountId: accountA,
        status: 'active',
        tag: 'first',
        webhookUrl: 'http://127.0.0.1:9/first',
        chainIds: [31337],
        pending: 1,
        held: 0,
        failed: 1,
      },
      expect.objectContaining({ id: paused, status: 'paused', pending: 0, held: 0, failed: 0 }),
      expect.objectContaining({ id: errored, accountId: accountB, status: 'error', pending: 0, held: 1 }),
    ]);
  });

  it('filters by status and by account, and prints one line per stream', async () => {
    const byStatus = await admin(['streams', 'list', '--status', 'error']);
    expect(byStatus.status).toBe(0);
    expect(byStatus.stdout).toBe(
      `1 stream(s)\n${errored}  account ${accountB}  error  tag "third"  http://127.0.0.1:9/third  chains 31337  deliveries 0 pending, 1 held, 0 failed\n`,
    );
    const byAccount = await admin(['streams', 'list', '--account', accountA, '--json']);
    expect((JSON.parse(byAccount.stdout) as { id: string }[]).map((s) => s.id)).toEqual([active, paused]);
    const none = await admin(['streams', 'list', '--status', 'terminated']);
    expect([none.status, none.stdout]).toEqual([0, 'no streams\n']);
  });

  it('refuses a bad filter with exit 2 and the usage, never a stack trace', async () => {
    for (const args of [
      ['streams', 'list', '--status', 'broken'],
      ['streams', 'list', '--account', 'nobody'],
      ['streams', 'list', '--colour'],
    ]) {
      const run = await admin(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('usage: pnpm admin streams list');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('admin streams show', () => {
  it("shows one stream's config, status, addresses and recent deliveries", async () => {
    const run = await admin(['streams', 'show', active, '--json']);
    expect(run.status).toBe(0);
    const shown = JSON.parse(run.stdout) as Record<string, unknown> & { recentDeliveries: { id: string }[] };
    expect(shown).toMatchObject({
      id: active,
      accountId: accountA,
      status: 'active',
      successRate: 100,
      chainIds: [31337],
      addresses: 2,
      deliveries: 3,
      config: { webhookUrl: 'http://127.0.0.1:9/first', tag: 'first' },
    });
    expect(shown.recentDeliveries.map((d) => d.id).sort()).toEqual(
      [ids.pending, ids.failed, ids.delivered].sort(),
    );
    const text = await admin(['streams', 'show', active]);
    expect(text.stdout).toContain(`stream ${active} (account ${accountA})`);
    expect(text.stdout).toContain('chains 31337, 2 address(es), 3 deliveries');
  });

  it('exits 1 for a stream that does not exist, 2 for an id that is not one', async () => {
    const missing = randomUUID();
    const run = await admin(['streams', 'show', missing]);
    expect([run.status, run.stderr]).toEqual([1, `stream ${missing} not found\n`]);
    const bad = await admin(['streams', 'show', 'x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('the stream id "x" is not an id (a uuid)');
    expect((await admin(['streams', 'show'])).status).toBe(2);
  });
});

describe('admin deliveries replay', () => {
  const rowOf = async (id: string) =>
    (
      await pool.query<{ status: string; job_id: string }>(
        'SELECT status, job_id FROM deliveries WHERE id = $1',
        [id],
      )
    ).rows[0];

  it('puts a failed, a delivered and a held delivery back to pending, each under an enqueued job', async () => {
    for (const id of [ids.failed, ids.delivered, ids.held]) {
      const run = await admin(['deliveries', 'replay', id]);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const row = await rowOf(id);
      expect(row?.status).toBe('pending');
      expect(row?.job_id).toMatch(new RegExp(`^${id}_replay_\\d+$`));
      expect(run.stdout).toContain(`is pending again as job ${row?.job_id}`);
      const job = await queue.getJob(row?.job_id ?? '');
      expect(job?.data).toEqual({ v: 1, deliveryId: id });
    }
  });

  it('exits 1 for a delivery that does not exist, and when Redis does not answer', async () => {
    const missing = randomUUID();
    const run = await admin(['deliveries', 'replay', missing]);
    expect([run.status, run.stderr]).toEqual([1, `delivery ${missing} not found\n`]);

    const down = await admin(['deliveries', 'replay', ids.pending], {
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/^failed: .*ECONNREFUSED/);
    expect(down.stderr).not.toMatch(/\n\s+at /);
    expect((await rowOf(ids.pending))?.job_id).toBeNull(); // untouched: nothing was marked
  });

  it('refuses an unknown command or a missing id with exit 2 and the usage', async () => {
    for (const args of [
      [],
      ['deliveries'],
      ['deliveries', 'replay'],
      ['deliveries', 'replay', ids.pending, 'more'],
    ]) {
      const run = await admin(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('usage: pnpm admin');
    }
  });
});

// The follower's side (it picks the request up and re-publishes the blocks) is tested with a
// running follower in apps/chain-follower (createRequestedBackfill.test.ts); here the command.
describe('admin backfill', () => {
  const requestOf = async (chainId: number) =>
    (
      await pool.query<{ id: string; from_block: string; to_block: string; next_block: string }>(
        'SELECT id, from_block, to_block, next_block FROM backfill_requests WHERE chain_id = $1 ORDER BY id DESC',
        [chainId],
      )
    ).rows[0];

  it('records a request for the range and shows its progress', async () => {
    const run = await admin(['backfill', '2', '8', '--chain', '31337']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const row = await requestOf(31337);
    expect(row).toMatchObject({ from_block: '2', to_block: '8', next_block: '2' });
    expect(run.stdout).toBe(
      `backfill ${row?.id} on chain 31337: blocks 2 to 8, 0 of 7 re-published\nfollow it with: pnpm admin backfill status ${row?.id}\n`,
    );
    await advanceBackfill(pool, row?.id ?? '', 5);
    const shown = await admin(['backfill', 'status', row?.id ?? '']);
    expect([shown.status, shown.stdout]).toEqual([
      0,
      `backfill ${row?.id} on chain 31337: blocks 2 to 8, 3 of 7 re-published\n`,
    ]);
  });

  it('runs up to the follower checkpoint by default and, with --wait, prints progress until done', async () => {
    const chainId = 4242;
    await pool.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES ($1, 20, '\\x00')`,
      [chainId],
    );
    const waiting = admin(['backfill', '11', '--chain', String(chainId), '--wait']);
    let row = await requestOf(chainId);
    for (let i = 0; i < 100 && !row; i++) {
      await new Promise((r) => setTimeout(r, 100));
      row = await requestOf(chainId);
    }
    expect(row).toMatchObject({ from_block: '11', to_block: '20', next_block: '11' });
    const id = row?.id ?? '';
    // The follower's steps, each seen by the command's polls (every second): a first chunk, then the rest.
    await new Promise((r) => setTimeout(r, 2_500));
    await advanceBackfill(pool, id, 16);
    await new Promise((r) => setTimeout(r, 2_500));
    await advanceBackfill(pool, id, 21);
    const run = await waiting;
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `backfill ${id} on chain ${chainId}: blocks 11 to 20, 0 of 10 re-published`,
      `backfill ${id} on chain ${chainId}: blocks 11 to 20, 5 of 10 re-published`,
    ]);
    expect(lines[2]).toMatch(
      new RegExp(`^backfill ${id} on chain ${chainId}: blocks 11 to 20 re-published \\(done .+\\)$`),
    );
  });

  it('exits 1 without a checkpoint to default to, 2 on a bad range or a missing chain', async () => {
    const none = await admin(['backfill', '1', '--chain', '999']);
    expect([none.status, none.stderr]).toEqual([1, 'chain 999 has no follower checkpoint: give <toBlock>\n']);
    expect((await admin(['backfill', 'status', '123456'])).stderr).toBe('backfill 123456 not found\n');
    for (const args of [
      ['backfill', '5', '3', '--chain', '31337'],
      ['backfill', '5'],
      ['backfill', 'x', '--chain', '31337'],
      ['backfill', '1', '--chain', '0x7a69'],
      ['backfill', 'status', 'soon'],
    ]) {
      const run = await admin(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('usage: pnpm admin');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await requestOf(999)).toBeUndefined();
  });

  /** The line `status` and `cancel` print for a cancelled request, with the time it was cancelled. */
  const cancelledLine = async (id: string, rest: string) => {
    const row = await getBackfillRequest(pool, id);
    return `backfill ${id} on chain ${row?.chainId}: ${rest} (cancelled ${row?.cancelledAt?.toISOString()})`;
  };

  it('cancels an open request where it got to, for status and the follower alike; a second cancel is fine', async () => {
    const { id } = await requestBackfill(pool, { chainId: 31337, fromBlock: 0, toBlock: 99 });
    await advanceBackfill(pool, id, 40);
    const run = await admin(['backfill', 'cancel', id]);
    const line = await cancelledLine(id, 'blocks 0 to 99, cancelled after 40 of 100 re-published');
    expect(run).toEqual({ status: 0, stdout: `${line}\n`, stderr: '' });
    expect(await admin(['backfill', 'status', id])).toEqual({ status: 0, stdout: `${line}\n`, stderr: '' });
    expect(await admin(['backfill', 'cancel', id])).toEqual({
      status: 0,
      stdout: `backfill ${id} was already cancelled\n${line}\n`,
      stderr: '',
    });
    // Finished: no longer open for `pnpm status` nor the follower, whose late advance changes nothing.
    expect((await listOpenBackfills(pool)).map((r) => r.id)).not.toContain(id);
    const before = await getBackfillRequest(pool, id);
    expect(before?.finishedAt).toEqual(before?.cancelledAt);
    expect(await advanceBackfill(pool, id, 45)).toBe(false);
    expect(await getBackfillRequest(pool, id)).toEqual(before);
  });

  it('exits 1 to cancel a request that is done or does not exist, 2 on bad usage', async () => {
    const { id } = await requestBackfill(pool, { chainId: 31337, fromBlock: 0, toBlock: 9 });
    await advanceBackfill(pool, id, 10);
    const done = await getBackfillRequest(pool, id);
    expect(await admin(['backfill', 'cancel', id])).toEqual({
      status: 1,
      stdout: '',
      stderr: `backfill ${id} is already done (${done?.finishedAt?.toISOString()}): nothing to cancel\n`,
    });
    expect(await getBackfillRequest(pool, id)).toEqual(done);
    expect(await admin(['backfill', 'cancel', '123456'])).toEqual({
      status: 1,
      stdout: '',
      stderr: 'backfill 123456 not found\n',
    });
    for (const [args, message] of [
      [['backfill', 'cancel'], 'the backfill request id is missing'],
      [['backfill', 'cancel', 'x'], 'the request id "x" is not a non-negative integer'],
      [['backfill', 'cancel', id, '7'], 'unexpected argument "7"'],
      [['backfill', 'cancel', id, '--wait'], '--wait does not apply to backfill cancel'],
    ] as const) {
      expect(await admin([...args])).toEqual({
        status: 2,
        stdout: '',
        stderr: `${message}\n${ADMIN_USAGE}\n`,
      });
    }
  });

  it('ends --wait with exit 1 when the request it waits for gets cancelled', async () => {
    const chainId = 4343;
    await pool.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES ($1, 30, '\\x00')`,
      [chainId],
    );
    const waiting = admin(['backfill', '21', '--chain', String(chainId), '--wait']);
    let row = await requestOf(chainId);
    for (let i = 0; i < 100 && !row; i++) {
      await new Promise((r) => setTimeout(r, 100));
      row = await requestOf(chainId);
    }
    const id = row?.id ?? '';
    await new Promise((r) => setTimeout(r, 1_500));
    await advanceBackfill(pool, id, 25); // a chunk, seen by the command's next poll
    await new Promise((r) => setTimeout(r, 2_500));
    const cancel = await admin(['backfill', 'cancel', id]);
    const line = await cancelledLine(id, 'blocks 21 to 30, cancelled after 4 of 10 re-published');
    expect(cancel).toEqual({ status: 0, stdout: `${line}\n`, stderr: '' });
    expect(await waiting).toEqual({
      status: 1,
      stdout: [
        `backfill ${id} on chain ${chainId}: blocks 21 to 30, 0 of 10 re-published`,
        `backfill ${id} on chain ${chainId}: blocks 21 to 30, 4 of 10 re-published`,
        '',
      ].join('\n'),
      stderr: `${line}\n`,
    });
  });
});

describe('admin dead-letters', () => {
  it('lists what the consumers set aside with its block, then nothing once acknowledged (all of it with --all)', async () => {
    const topicPrefix = `${uniqueName('dl')}.`;
    const kafka = createKafka({ brokers: settings.kafkaBrokers, clientId: 'admin-test' });
    await ensureTopics(kafka, [{ topic: `${topicPrefix}${TOPICS.deadLetters}` }]);
    const producer = createProducer(kafka, 'ordered');
    await producer.connect();
    const deadLetters = createDeadLetters({ producer, topicPrefix, consumer: 'stream-matcher' });
    const hash = `0x${'ab'.repeat(32)}`;
    await deadLetters.send({
      topic: `${topicPrefix}evm.blocks.v1`,
      partition: 0,
      offset: '41',
      key: Buffer.from('31337'),
      value: Buffer.from(JSON.stringify({ type: 'new', chainId: 31337, block: { number: 77, hash } })),
      reason: 'failed for good: PostgreSQL 23514 (check_violation): refused',
    });
    await producer.disconnect();
    const kafkaEnv = { KAFKA_BROKERS: settings.kafkaBrokers.join(','), KAFKA_TOPIC_PREFIX: topicPrefix };

    const listed = await admin(['dead-letters', 'list'], kafkaEnv);
    expect(listed.status).toBe(0);
    const [title, line] = listed.stdout.trim().split('\n');
    expect(title).toBe('1 dead letter(s) in all');
    expect(line).toMatch(
      new RegExp(
        `^\\S+Z  stream-matcher  ${topicPrefix}evm\\.blocks\\.v1 partition 0 offset 41  chain 31337 block 77 ${hash}  failed for good: PostgreSQL 23514 \\(check_violation\\): refused$`,
      ),
    );
    const json = JSON.parse((await admin(['dead-letters', 'list', '--json'], kafkaEnv)).stdout) as {
      block: unknown;
    }[];
    expect(json.map((l) => l.block)).toEqual([{ chainId: 31337, number: 77, hash }]);

    const acked = await admin(['dead-letters', 'ack'], kafkaEnv);
    expect(acked.stdout).toMatch(/^dead letters acknowledged up to \S+Z\n$/);
    expect((await admin(['dead-letters', 'list'], kafkaEnv)).stdout).toMatch(
      /^no dead letters since the acknowledgment of \S+Z\n$/,
    );
    expect((await admin(['dead-letters', 'list', '--all'], kafkaEnv)).stdout.split('\n')[0]).toBe(
      '1 dead letter(s) kept',
    );
  });
});

describe('admin output of stored values', () => {
  it("shows a stored URL's and tag's terminal escapes and line breaks as text, never obeys them", async () => {
    const account = randomUUID();
    await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
      account,
      'e',
      's',
    ]);
    // A clickable link to elsewhere, a screen clear, a line of its own and a right-to-left override.
    const url =
      'http://127.0.0.1:9/\u001b]8;;http://elsewhere\u0007pay\u001b]8;;\u0007\u001b[2J\nfake line\u009b31m';
    const tag = 'tag\u202egnp.exe';
    await insertStream(pool, {
      id: randomUUID(),
      accountId: account,
      chainIds: [31337],
      config: { webhookUrl: url, description: 'd', tag, chainIds: ['0x7a69'] },
    });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
    const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

    const text = await admin(['streams', 'list', '--account', account]);
    expect(text.status).toBe(0);
    expect(text.stdout).not.toMatch(controls);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(
      'http://127.0.0.1:9/\\u001b]8;;http://elsewhere\\u0007pay\\u001b]8;;\\u0007\\u001b[2J\\u000afake line\\u009b31m',
    );
    expect(lines[1]).toContain('tag "tag\\u202egnp.exe"');

    // As JSON: the same escapes are JSON's own, so the values read back unchanged.
    const json = await admin(['streams', 'list', '--account', account, '--json']);
    expect(json.stdout).not.toMatch(controls);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ webhookUrl: url, tag })]);
  });
});
