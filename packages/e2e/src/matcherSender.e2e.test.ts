import { createHmac, randomUUID } from 'node:crypto';
import { acknowledgeDeadLetters } from '@tributary/db/ops';
import { addStreamAddresses, insertStream } from '@tributary/db/streams';
import { type FullBlockEvent, TOPICS } from '@tributary/schema';
import { getTestSettings, startRedisCutProxy } from '@tributary/testkit';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import type { Producer } from 'kafkajs';
import Moralis from 'moralis';
import { keccak256, stringToBytes } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { readMetric } from './harness/readMetric.ts';
import type { AppName } from '@tributary/testkit/bench';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { transferBlockEvent } from './harness/transferBlockEvent.ts';
import { waitFor } from './harness/waitFor.ts';
import { erc20TransferEventAbi } from '@tributary/evm';

// The stream-matcher and the webhook-sender as processes, with streams managed through the gateway,
// fed block events written by hand on Kafka (as the follower publishes them): every field of the
// webhook is stated here. A block published once PUT /streams/evm has answered is evaluated against
// the stream: no test waits for the matcher to learn of a change.
const CHAIN = 31337;
const TRANSFER_TOPIC0 = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const ALICE = addr(0xa11ce);
const BOB = addr(0xb0b);

let pipeline: Pipeline;
let gw: GatewayClient;
let receiver: WebhookReceiver;
let producer: Producer;
let secret: string;
let blockCounter = 1000;
/** Status codes each path answers with in turn (the last one repeats); 200 when none. */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.answerWith((w) => {
    const script = answers.get(w.path) ?? [];
    return script.length > 1 ? script.shift()! : (script[0] ?? 200);
  });
  pipeline = await startPipeline({
    name: 'matcher-sender',
    apps: ['gateway', 'stream-matcher', 'webhook-sender'],
    env: {
      // No periodic reconcile: a stream change reaches the matcher by its event or by the check
      // before the blocks of each fetch, nothing else.
      'stream-matcher': { STREAM_RECONCILE_MS: '0' },
      'webhook-sender': {
        RETRY_SCHEDULE_MS: '100,200',
        WEBHOOK_TIMEOUT_MS: '2000',
        SENDER_CONCURRENCY: '10',
      },
    },
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  secret = (await gw.get('/settings')).body.secretKey;
  const kafka = createKafka({
    clientId: 'e2e-blocks',
    brokers: getTestSettings().kafkaBrokers,
    logger: createLogger('e2e-blocks', 'silent'),
  });
  producer = kafka.producer();
  await producer.connect();
  await Moralis.start({ apiKey: pipeline.apiKey.key, streamsSecret: secret });
}, 120_000);

afterAll(async () => {
  await producer?.disconnect();
  await pipeline?.close();
  await receiver?.close();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

/** A block with one ERC20 transfer of `value` from ALICE to BOB on `token`, as the follower publishes it. */
function transferBlock(token: string, value: bigint, type: 'new' | 'confirmed'): FullBlockEvent {
  return transferBlockEvent({
    chainId: CHAIN,
    number: blockCounter++,
    token,
    from: ALICE,
    to: BOB,
    value,
    type,
  });
}

async function publishRaw(value: string) {
  await producer.send({
    topic: `${pipeline.topicPrefix}${TOPICS.blocks}`,
    messages: [{ key: String(CHAIN), value }],
  });
}
const publishBlock = (event: FullBlockEvent) => publishRaw(JSON.stringify(event));

/** PUT /streams/evm for the ERC20 transfers of `token`, with its webhooks to `/<path>` of the receiver. */
async function createStream(path: string, token: string): Promise<string> {
  const created = await gw.request('PUT', '/streams/evm', {
    webhookUrl: `${receiver.url.replace(/\/webhook$/, '')}/${path}`,
    description: path,
    tag: `tag-${path}`,
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  });
  expect(created.status).toBe(200);
  const added = await gw.request('POST', `/streams/evm/${created.body.id}/address`, { address: token });
  expect(added.status).toBe(200);
  return created.body.id;
}

/** The webhooks of a path, without the test webhook of create and re-activation (empty streamId). */
const hitsOf = (path: string) => receiver.received.filter((w) => w.path === `/${path}` && w.body?.streamId);

const deliveriesOf = async (streamId: string) =>
  (
    await pipeline.pool.query<{ status: string; attempts: number; confirmed: boolean }>(
      'SELECT status, attempts, confirmed FROM deliveries WHERE stream_id = $1 ORDER BY created_at',
      [streamId],
    )
  ).rows;

/** The hosted service's x-signature: keccak256 of the exact body bytes followed by the account's secret. */
const xSignature = (raw: string) => keccak256(stringToBytes(raw + secret));

const settle = () => new Promise((r) => setTimeout(r, 1_000));

/** The matcher's /readyz answer. */
async function matcherReadiness(): Promise<{
  status: string;
  checks: Record<string, { ok: boolean; error?: string }>;
}> {
  const port = pipeline.running('stream-matcher')!.port;
  return (await fetch(`http://127.0.0.1:${port}/readyz`)).json() as never;
}

/** The first message on the pipeline's dead-letter topic that `match` accepts. */
async function deadLetterWhere(
  match: (l: { value: string; headers: Record<string, string> }) => boolean,
): Promise<{ value: string; headers: Record<string, string> }> {
  const kafka = createKafka({
    clientId: 'e2e-dl',
    brokers: getTestSettings().kafkaBrokers,
    logger: createLogger('e2e-dl', 'silent'),
  });
  const reader = kafka.consumer({ groupId: `${pipeline.topicPrefix}dead-letters-${randomUUID()}` });
  await reader.connect();
  await reader.subscribe({ topic: `${pipeline.topicPrefix}${TOPICS.deadLetters}`, fromBeginning: true });
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no such dead letter within 30 s')), 30_000);
      void reader.run({
        eachMessage: async ({ message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
          const letter = { value: String(message.value), headers };
          if (match(letter)) {
            clearTimeout(timer);
            resolve(letter);
          }
        },
      });
    });
  } finally {
    await reader.disconnect();
  }
}

describe('stream-matcher + webhook-sender processes', () => {
  it('a poison message goes to the dead-letter topic and the blocks after it still arrive', async () => {
    const token = addr(0xd1e);
    const id = await createStream('poison', token);
    await publishRaw('{"type":"new","v":1');
    const event = transferBlock(token, 77n, 'new');
    await publishBlock(event);
    const got = await waitFor('the webhook after the poison message', () => hitsOf('poison')[0]);
    expect(got.body.block.number).toBe(String(event.block.number));
    expect((await deliveriesOf(id)).length).toBe(1);
    const letter = await deadLetterWhere((l) => l.value === '{"type":"new","v":1');
    expect(letter.headers).toMatchObject({
      'x-source-topic': `${pipeline.topicPrefix}${TOPICS.blocks}`,
      'x-consumer': pipeline.groupIds.matcher,
      'x-reason': 'message is not JSON',
    });
    await acknowledgeDeadLetters(pipeline.pool);
  });

  it('a failure a later try clears (serialization failures while a flag is set) is retried, never skipped, never set aside', async () => {
    const token = addr(0xd1f);
    const id = await createStream('transient', token);
    await pipeline.pool.query(`
      CREATE TABLE fail_inserts (on_ boolean);
      INSERT INTO fail_inserts VALUES (true);
      CREATE FUNCTION fail_while_flagged() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM fail_inserts WHERE on_) THEN
          RAISE EXCEPTION 'injected' USING ERRCODE = 'serialization_failure';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_while_flagged BEFORE INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION fail_while_flagged();`);
    try {
      const event = transferBlock(token, 78n, 'new');
      await publishBlock(event);
      await settle();
      await settle();
      expect(await deliveriesOf(id)).toEqual([]);
      await pipeline.pool.query('UPDATE fail_inserts SET on_ = false');
      const got = await waitFor('the webhook once the failures stop', () => hitsOf('transient')[0]);
      expect(got.body.block.number).toBe(String(event.block.number));
      expect(await matcherReadiness()).toMatchObject({ status: 'ok' });
    } finally {
      await pipeline.pool.query(
        'DROP TABLE fail_inserts CASCADE; DROP FUNCTION fail_while_flagged() CASCADE',
      );
    }
  });

  it('a deterministic failure (a constraint violation) sets the block aside with its reason, said by readiness until acknowledged; the blocks after it arrive', async () => {
    const token = addr(0xd20);
    const id = await createStream('deterministic', token);
    // A real PostgreSQL error on every new delivery row of this stream, the same every time.
    await pipeline.pool.query(
      `ALTER TABLE deliveries ADD CONSTRAINT reject_stream CHECK (stream_id <> '${id}') NOT VALID`,
    );
    const failing = transferBlock(token, 79n, 'new');
    await publishBlock(failing);
    const letter = await deadLetterWhere(
      (l) =>
        l.headers['x-source-topic'] === `${pipeline.topicPrefix}${TOPICS.blocks}` &&
        l.value.includes(failing.block.hash),
    );
    expect(letter.headers['x-consumer']).toBe(pipeline.groupIds.matcher);
    expect(letter.headers['x-reason']).toMatch(/^failed for good: PostgreSQL 23514 \(check_violation\)/);
    const ready = await matcherReadiness();
    expect(ready.status).toBe('fail');
    expect(ready.checks['dead-letters']?.error).toMatch(
      /1 message\(s\) set aside on the dead-letter topic .*23514/,
    );
    // The blocks after it go on.
    await pipeline.pool.query('ALTER TABLE deliveries DROP CONSTRAINT reject_stream');
    const next = transferBlock(token, 80n, 'new');
    await publishBlock(next);
    const got = await waitFor('the webhook of the block after it', () => hitsOf('deterministic')[0]);
    expect(got.body.block.number).toBe(String(next.block.number));
    expect((await deliveriesOf(id)).length).toBe(1);
    // An operator looked: readiness is back; the block itself comes back when re-published.
    await acknowledgeDeadLetters(pipeline.pool);
    expect(await matcherReadiness()).toMatchObject({ status: 'ok' });
    await publishBlock(failing);
    await waitFor('the set-aside block, re-published', () =>
      hitsOf('deterministic').find((w) => w.body.block.number === String(failing.block.number)),
    );
  });

  it('delivers unconfirmed and confirmed webhooks with the exact signed body; ignores others', async () => {
    const token = addr(0x70c0);
    const id = await createStream('basic', token);
    const event = transferBlock(token, 2_500_000n, 'new');
    await publishBlock(transferBlock(addr(0xbeef), 1n, 'new')); // not watched
    await publishBlock(event);
    await publishBlock({ ...event, type: 'confirmed' });
    await publishBlock(event); // a replayed message enqueues nothing twice

    const got = await waitFor('two webhooks', () =>
      hitsOf('basic').length >= 2 ? hitsOf('basic') : undefined,
    );
    const txHash = h(0x7000 + event.block.number);
    const expected = (confirmed: boolean) => ({
      confirmed,
      chainId: '0x7a69',
      abi: [erc20TransferEventAbi],
      streamId: id,
      tag: 'tag-basic',
      retries: 0,
      block: {
        number: String(event.block.number),
        hash: h(event.block.number),
        timestamp: String(1_700_000_000 + event.block.number),
      },
      logs: [
        {
          logIndex: '0',
          transactionHash: txHash,
          address: token,
          data: '0x00000000000000000000000000000000000000000000000000000000002625a0',
          topic0: TRANSFER_TOPIC0,
          topic1: '0x00000000000000000000000000000000000000000000000000000000000a11ce',
          topic2: '0x0000000000000000000000000000000000000000000000000000000000000b0b',
          topic3: null,
        },
      ],
      txs: [],
      txsInternal: [],
      erc20Transfers: [
        {
          transactionHash: txHash,
          logIndex: '0',
          contract: token,
          from: ALICE,
          to: BOB,
          value: '2500000',
          tokenName: 'Token',
          tokenSymbol: 'TOK',
          tokenDecimals: '6',
          valueWithDecimals: '2.5',
          possibleSpam: false,
        },
      ],
      erc20Approvals: [],
      nftTransfers: [],
      nftApprovals: { ERC721: [], ERC1155: [] },
      nftTokenApprovals: [],
      nativeBalances: [],
    });
    for (const confirmed of [false, true]) {
      const hit = got.find((w) => w.body.confirmed === confirmed)!;
      expect(hit.body).toEqual(expected(confirmed));
      // The bytes survive the SDK's parse + JSON.stringify unchanged (its verifySignature depends on it).
      expect(JSON.stringify(hit.body)).toBe(hit.raw);
      expect(hit.headers['x-signature']).toBe(xSignature(hit.raw));
      const ts = hit.headers['webhook-timestamp'] as string;
      const mac = createHmac('sha256', secret)
        .update(`${hit.headers['webhook-id']}.${ts}.${hit.raw}`)
        .digest('base64');
      expect(hit.headers['webhook-signature']).toBe(`v1,${mac}`);
      expect(hit.headers['content-type']).toBe('application/json');
      expect(
        Moralis.Streams.verifySignature({ body: hit.body, signature: hit.headers['x-signature'] as string }),
      ).toBe(true);
      const decoded = Moralis.Streams.parsedLogs<{ from: string; to: string; value: { toString(): string } }>(
        hit.body,
      );
      expect(decoded.map((d) => [d.from.toLowerCase(), d.to.toLowerCase(), d.value.toString()])).toEqual([
        [ALICE, BOB, '2500000'],
      ]);
    }
    // Let a duplicate, if any, arrive before counting.
    await settle();
    expect(hitsOf('basic')).toHaveLength(2);
    expect(await deliveriesOf(id)).toEqual([
      { status: 'delivered', attempts: 1, confirmed: false },
      { status: 'delivered', attempts: 1, confirmed: true },
    ]);
  });

  it('a stream whose change event never came gets the very next block', async () => {
    // What the gateway leaves behind when Kafka is away: the stream in PostgreSQL, no change event.
    const token = addr(0x10e);
    const id = randomUUID();
    await insertStream(pipeline.pool, {
      id,
      accountId: pipeline.apiKey.accountId,
      chainIds: [CHAIN],
      config: {
        webhookUrl: `${receiver.url.replace(/\/webhook$/, '')}/no-event`,
        description: 'no-event',
        tag: 'tag-no-event',
        chainIds: ['0x7a69'],
        includeContractLogs: true,
        topic0: ['Transfer(address,address,uint256)'],
        abi: [erc20TransferEventAbi],
      },
    });
    await addStreamAddresses(pipeline.pool, id, [token]);
    const event = transferBlock(token, 5n, 'new');
    await publishBlock(event);
    const got = await waitFor('the webhook', () => hitsOf('no-event')[0]);
    expect(got.body.streamId).toBe(id);
    expect(got.body.block.number).toBe(String(event.block.number));
  });

  it('delivers only blocks after the follower checkpoint at creation', async () => {
    const token = addr(0x01d);
    const old = transferBlock(token, 1n, 'new');
    // The follower had published `old` when the stream was created: it is history to the stream.
    await pipeline.pool.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES ($1, $2, $3)
       ON CONFLICT (chain_id) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash`,
      [CHAIN, old.block.number, Buffer.from(old.block.hash.slice(2), 'hex')],
    );
    const id = await createStream('old', token);
    const fresh = transferBlock(token, 2n, 'new');
    await publishBlock(old);
    await publishBlock(fresh);
    await waitFor('the fresh block', () => hitsOf('old')[0]);
    await settle();
    expect(hitsOf('old').map((w) => w.body.block.hash)).toEqual([fresh.block.hash]);
    expect(await deliveriesOf(id)).toHaveLength(1);
  });

  it('retries after a 500 with retries=1, signed again, same webhook-id', async () => {
    const token = addr(0x5000);
    const id = await createStream('retry', token);
    answers.set('/retry', [500, 200]);
    await publishBlock(transferBlock(token, 7n, 'new'));
    const got = await waitFor('the retry', () => (hitsOf('retry').length >= 2 ? hitsOf('retry') : undefined));
    const [first, second] = got;
    expect(first!.body.retries).toBe(0);
    expect(second!.body.retries).toBe(1);
    expect({ ...second!.body, retries: 0 }).toEqual(first!.body);
    expect(second!.headers['x-signature']).toBe(xSignature(second!.raw));
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    await waitFor('delivered', async () => (await deliveriesOf(id))[0]?.status === 'delivered');
    const attempts = await pipeline.pool.query(
      'SELECT a.attempt, a.status_code FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.stream_id = $1 ORDER BY a.attempt',
      [id],
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
  });

  it('a failing receiver drives the stream to error; its webhooks are held; re-activation delivers them', async () => {
    const token = addr(0xe770);
    const id = await createStream('failing', token);
    answers.set('/failing', [500]);
    // 3 attempts per delivery (schedule 100 ms, 200 ms): 11 deliveries give 33 failed attempts (< 70%).
    for (let i = 0; i < 11; i++) await publishBlock(transferBlock(token, BigInt(i + 1), 'new'));
    // All eleven stored first: an empty list has no pending delivery either.
    await waitFor(
      'no pending deliveries',
      async () => {
        const all = await deliveriesOf(id);
        return all.length === 11 && all.every((d) => d.status !== 'pending');
      },
      {
        timeoutMs: 30_000,
      },
    );
    const stream = await gw.get(`/streams/evm/${id}`);
    expect(stream.body.status).toBe('error');
    expect(stream.body.statusMessage).toBe(
      'Stream is in error: its webhook delivery success rate fell below 70%',
    );
    const before = hitsOf('failing').length;

    // A block after the error: evaluated, its webhook held.
    const late = transferBlock(token, 99n, 'new');
    await publishBlock(late);
    await waitFor('the held delivery', async () => (await deliveriesOf(id)).length === 12 || undefined);
    expect((await deliveriesOf(id))[11]!.status).toBe('held');
    await settle();
    expect(hitsOf('failing')).toHaveLength(before);

    // The receiver is fixed; its owner sets the stream active again (the test webhook passes first).
    answers.set('/failing', [200]);
    const resumed = await gw.request('POST', `/streams/evm/${id}/status`, { status: 'active' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('active');
    const lateHit = await waitFor('the held webhook', () =>
      hitsOf('failing').find((w) => w.body.block.number === String(late.block.number)),
    );
    expect(lateHit.body.erc20Transfers[0].value).toBe('99');
    await waitFor(
      'the held delivery delivered',
      async () => (await deliveriesOf(id))[11]?.status === 'delivered',
    );
  });
});

/** The sender's count of deliveries the relay enqueued again (their job was missing). */
const requeuedByRelay = () =>
  readMetric(pipeline.running('webhook-sender')!.port, 'tributary_relay_requeued_total');

/**
 * Restarts `app` behind a proxy that cuts its Redis connections while BullMQ sets them up (the
 * port refused until 6 s after the first connection), restarting it as a supervisor does each time it
 * exits; then once more on Redis itself. Returns the exit codes seen behind the proxy.
 */
async function restartThroughRedisCut(
  app: AppName,
  env: Record<string, string> = {},
): Promise<(number | null)[]> {
  await pipeline.stop(app);
  const proxy = await startRedisCutProxy({ target: getTestSettings().redisUrl, windowMs: 6_000 });
  const exits: (number | null)[] = [];
  try {
    for (let tries = 0; tries < 10; tries++) {
      try {
        const service = await pipeline.start(app, { ...env, REDIS_URL: proxy.url });
        let exit: { code: number | null } | undefined;
        void service.exited.then((e) => {
          exit = e;
        });
        // Up 4 s past the window: its queue clients came through (or it exited meanwhile).
        await waitFor('an exit, or the service up past the window', () =>
          exit !== undefined || proxy.sinceWindow() > 4_000 ? true : undefined,
        );
        if (exit === undefined) break;
        exits.push(exit.code);
      } catch (err) {
        const code = /exited \(code (\d+)/.exec(String(err))?.[1];
        if (code === undefined) throw err;
        exits.push(Number(code));
      }
      if (exits.at(-1) !== 75) break;
    }
    expect(proxy.cuts()).toBeGreaterThan(0);
    return exits;
  } finally {
    // The proof is in the caller's checks, made while the service still runs behind the proxy.
    stopProxies.push(async () => {
      await pipeline.stop(app);
      await proxy.close();
      await pipeline.start(app, env);
    });
  }
}
const stopProxies: (() => Promise<void>)[] = [];

// Redis dying while BullMQ sets a queue's connection up leaves that queue failing for good: every
// service that opens the webhook queue exits for a restart then (a fast-failing queue: the
// matcher's fast path, the sender's relay), or waits it out (the gateway's, the worker's), and
// afterwards does its part: nothing waits on a relay that never runs again.
// Each restarts services, several times over: minutes on a loaded machine.
describe(
  'each service that opens the webhook queue, with Redis cut while it sets the queue up',
  { timeout: 240_000 },
  () => {
    afterEach(async () => {
      for (const undo of stopProxies.splice(0)) await undo();
    });

    it('the matcher exits for a restart, then enqueues on its fast path', async () => {
      const token = addr(0xcc01);
      const id = await createStream('cut-matcher', token);
      const exits = await restartThroughRedisCut('stream-matcher');
      expect(exits).toContain(75);
      const requeued = await requeuedByRelay();
      await publishBlock(transferBlock(token, 7n, 'new'));
      await waitFor('the webhook', () => hitsOf('cut-matcher').length === 1 || undefined);
      expect(await requeuedByRelay()).toBe(requeued); // enqueued by the matcher, not found missing by the relay
      expect((await deliveriesOf(id)).map((d) => d.status)).toEqual(['delivered']);
    });

    it('the sender exits for a restart, then its relay enqueues a delivery whose job is missing', async () => {
      const token = addr(0xcc02);
      const id = await createStream('cut-sender', token);
      await publishBlock(transferBlock(token, 8n, 'new'));
      await waitFor('the first webhook', () => hitsOf('cut-sender').length === 1 || undefined);
      const exits = await restartThroughRedisCut('webhook-sender');
      expect(exits).toContain(75);
      // The delivery again pending, its job gone from Redis: only the relay can deliver it.
      await pipeline.pool.query(
        `UPDATE deliveries SET status = 'pending', job_id = 'lost-with-redis', job_at = now() - interval '1 hour'
       WHERE stream_id = $1`,
        [id],
      );
      await waitFor(
        'the webhook again, from the relay',
        () => hitsOf('cut-sender').length === 2 || undefined,
      );
      expect(await requeuedByRelay()).toBeGreaterThan(0);
    });

    it('the gateway waits it out, then replays a delivery through its queue', async () => {
      const token = addr(0xcc03);
      const id = await createStream('cut-gateway', token);
      await publishBlock(transferBlock(token, 9n, 'new'));
      await waitFor('the first webhook', () => hitsOf('cut-gateway').length === 1 || undefined);
      const exits = await restartThroughRedisCut('gateway');
      expect(exits).toEqual([]);
      const [delivery] = (
        await pipeline.pool.query<{ id: string }>('SELECT id FROM deliveries WHERE stream_id = $1', [id])
      ).rows;
      const replayed = await gw.request('POST', `/history/replay/${id}/${delivery!.id}`);
      expect(replayed.status).toBe(200);
      await waitFor('the replayed webhook', () => hitsOf('cut-gateway').length === 2 || undefined);
    });
  },
);

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
