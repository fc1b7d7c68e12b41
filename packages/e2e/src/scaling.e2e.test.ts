import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoTokenAbi } from '@tributary/contracts';
import {
  type DemoDeployment,
  type DevnetClient,
  createDevnetClient,
  deployDemo,
  waitMined,
} from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { TOPICS } from '@tributary/schema';
import { getTestSettings, startAnvil } from '@tributary/testkit';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import type { Admin } from 'kafkajs';
import type { Abi, Address, PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertTablesMatchChain } from './harness/assertTablesMatchChain.ts';
import { TRANSFER_TOPIC0 } from './harness/chainTruth.ts';
import { committedOffsets, isClientOf, readGroupMembers } from './harness/consumerGroups.ts';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { waitProjected } from './harness/progress.ts';
import { readMetric } from './harness/readMetric.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { mine, tokenActivity } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// A scaled deployment on one stack: two processes of every service but the chain-follower (one per
// chain, the single writer of its checkpoint). The gateways and the senders share the load; the
// projector and the matcher are consumer groups on the block topic (one partition here, as
// deployed by default): one member holds it, the other is a standby. SIGKILL of the active one:
// the standby takes over once Kafka drops the dead member (its session timeout), and every block
// is still projected once and every webhook sent once.
const erc20 = demoTokenAbi as Abi;
const CONFIRMATIONS = 2;
/** The projector's and matcher's KAFKA_SESSION_TIMEOUT_MS (its default): the takeover waits about this long. */
const SESSION_TIMEOUT_MS = 30_000;
type ConsumerApp = 'projector' | 'stream-matcher';

let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let me: Address;
let receiver: WebhookReceiver;
let gateways: GatewayClient[];
let admin: Admin;
let blocksTopic: string;
let streamId: string;
/** The first block the stream is evaluated against. */
let streamFrom: bigint;
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  me = client.account.address;
  demo = await deployDemo(client);
  await tokenActivity(client, demo, 0n);
  await mine(client, 20);
  receiver = await startWebhookReceiver();
  // A short stall threshold: a standby that took the group's lag for its own would be reported
  // stalled (not ready) within seconds, well inside the takeover.
  const consumer = { WATCHDOG_STALL_MS: '1000', KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) };
  pipeline = await startPipeline({
    name: 'scaling',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
    replicas: { projector: 2, 'stream-matcher': 2, 'webhook-sender': 2, gateway: 2 },
    env: { projector: consumer, 'stream-matcher': consumer },
  });
  gateways = [1, 2].map((i) => createGatewayClient(pipeline.gatewayUrlOf(i), pipeline.apiKey.key));
  blocksTopic = `${pipeline.topicPrefix}${TOPICS.blocks}`;
  admin = createKafka({
    clientId: 'e2e-scaling',
    brokers: getTestSettings().kafkaBrokers,
    logger: createLogger('e2e-scaling', 'silent'),
  }).admin();
  await admin.connect();
  await waitProjected(pipeline, chain, 120_000);
}, 240_000);

afterAll(async () => {
  await admin?.disconnect();
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

const groupOf = (app: ConsumerApp) =>
  app === 'projector' ? pipeline.groupIds.projector : pipeline.groupIds.matcher;

/** Once the group is stable with `size` members: which process holds the partition, which ones stand by. */
async function roles(app: ConsumerApp, size: number): Promise<{ active: number; standbys: number[] }> {
  return waitFor(
    `${app}'s group stable with ${size} members`,
    async () => {
      const members = await readGroupMembers(admin, groupOf(app), blocksTopic);
      if (members.length !== size) return undefined;
      const instanceOf = (m: (typeof members)[number]) =>
        [1, 2].find((i) => isClientOf(m, pipeline.kafkaClientId(app, i)));
      const holding = members.filter((m) => m.partitions.length > 0);
      if (holding.length !== 1) return undefined;
      expect(holding[0]!.partitions).toEqual([0]);
      return {
        active: instanceOf(holding[0]!)!,
        standbys: members.filter((m) => m.partitions.length === 0).map((m) => instanceOf(m)!),
      };
    },
    { timeoutMs: 90_000, diagnostics: pipeline.diagnostics },
  );
}

/** A block with a mint of the watched token, mined; its number. */
async function mint(amount: bigint): Promise<bigint> {
  const hash = await client.writeContract({
    address: demo.demo,
    abi: erc20,
    functionName: 'mint',
    args: [me, amount],
  } as Parameters<DevnetClient['writeContract']>[0]);
  return (await waitMined(client, hash)).blockNumber;
}

/** Mints a block every ~200 ms until stopped, as a busy chain would: work is always in flight. */
function driveBlocks(): { mined: bigint[]; stop(): Promise<void> } {
  let running = true;
  const mined: bigint[] = [];
  const loop = (async () => {
    for (let i = 1n; running; i++) {
      mined.push(await mint(10_000n + i));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    mined,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** The stream's webhooks as received, by `<block>/<confirmed>`. */
function receivedByBlock() {
  const byKey = new Map<string, { webhookId: string; hash: string; acknowledged: boolean }[]>();
  for (const w of receiver.received) {
    if (w.body?.streamId !== streamId || !w.body.block) continue;
    const k = `${w.body.block.number}/${w.body.confirmed}`;
    byKey.set(k, [
      ...(byKey.get(k) ?? []),
      { webhookId: String(w.headers['webhook-id']), hash: w.body.block.hash, acknowledged: w.acknowledged },
    ]);
  }
  return byKey;
}

/**
 * The webhooks the chain calls for: for every block from `streamFrom` to the confirmed head that
 * has a Transfer of the watched token, one unconfirmed and one confirmed (`<block>/<confirmed>`).
 */
async function expectedWebhooks(): Promise<Map<string, string>> {
  const head = await chain.getBlockNumber({ cacheTime: 0 });
  const logs = await chain.getLogs({ address: demo.demo, fromBlock: streamFrom, toBlock: head });
  const expected = new Map<string, string>();
  for (const l of logs) {
    if (l.topics[0] !== TRANSFER_TOPIC0) continue;
    expected.set(`${l.blockNumber}/false`, l.blockHash);
    if (l.blockNumber + BigInt(CONFIRMATIONS) <= head) expected.set(`${l.blockNumber}/true`, l.blockHash);
  }
  return expected;
}

/** Waits for every webhook the chain calls for, then asserts each came once, with one webhook-id. */
async function expectEveryWebhookOnce() {
  const expected = await expectedWebhooks();
  await waitFor(
    `${expected.size} webhooks`,
    () =>
      [...expected.keys()].every((k) =>
        receivedByBlock()
          .get(k)
          ?.some((w) => w.acknowledged),
      ),
    { timeoutMs: 180_000, diagnostics: pipeline.diagnostics },
  );
  // The receiver answered before the sender recorded the delivery: wait for the records.
  const pending = () =>
    pipeline.pool.query(`SELECT 1 FROM deliveries WHERE stream_id = $1 AND status = 'pending'`, [streamId]);
  await waitFor('no delivery pending', async () => (await pending()).rowCount === 0, {
    timeoutMs: 30_000,
    diagnostics: pipeline.diagnostics,
  });
  const received = receivedByBlock();
  expect([...received.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, hash] of expected) {
    expect(received.get(k), k).toEqual([{ webhookId: expect.any(String), hash, acknowledged: true }]);
  }
  // Each webhook-id is one delivery row of its block: none was created again for a block replayed.
  const rows = await pipeline.pool.query<{
    id: string;
    block_number: string;
    confirmed: boolean;
    status: string;
  }>('SELECT id, block_number, confirmed, status FROM deliveries WHERE stream_id = $1', [streamId]);
  expect(
    rows.rows
      .map((r) => ({ k: `${r.block_number}/${r.confirmed}`, id: r.id, status: r.status }))
      .sort((a, b) => a.k.localeCompare(b.k)),
  ).toEqual(
    [...received]
      .map(([k, [w]]) => ({ k, id: w!.webhookId, status: 'delivered' }))
      .sort((a, b) => a.k.localeCompare(b.k)),
  );
  return expected.size;
}

/** What each sender process counted as delivered (its own /metrics). */
const deliveredBySender = () =>
  Promise.all(
    [1, 2].map((i) =>
      readMetric(pipeline.running('webhook-sender', i)!.port, 'tributary_webhook_attempts_total', {
        outcome: 'delivered',
      }),
    ),
  );

describe('two of every service on one stack', () => {
  it('senders and gateways share the load; the projector and the matcher each have one active member and a standby', async () => {
    // A stream made through one gateway and changed through the other: both serve the same state.
    const created = await gateways[0]!.request('PUT', '/streams/evm', {
      webhookUrl: receiver.url,
      description: 'scaled deployment',
      tag: 'e2e-scaling',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    });
    expect(created.status).toBe(200);
    streamId = created.body.id;
    const added = await gateways[1]!.request('POST', `/streams/evm/${streamId}/address`, {
      address: demo.demo,
    });
    expect(added.status).toBe(200);
    streamFrom = (await chain.getBlockNumber({ cacheTime: 0 })) + 1n;
    const listed = await Promise.all(gateways.map((gw) => gw.get('/streams/evm', { limit: 10 })));
    expect(listed.map((r) => r.status)).toEqual([200, 200]);
    expect(listed[1]!.raw).toBe(listed[0]!.raw);
    expect(listed[0]!.body.result.map((s: { id: string }) => s.id)).toEqual([streamId]);

    for (let i = 1n; i <= 16n; i++) await mint(i);
    await mine(client, CONFIRMATIONS);
    const webhooks = await expectEveryWebhookOnce();
    expect(webhooks).toBe(32);

    // Both senders delivered, and between them exactly the webhooks received.
    const [first, second] = await deliveredBySender();
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
    expect(first! + second!).toBe(webhooks);

    // One member of each group holds the partition, the other stands by.
    for (const app of ['projector', 'stream-matcher'] as const) {
      const { active, standbys } = await roles(app, 2);
      expect([active, ...standbys].sort()).toEqual([1, 2]);
    }

    // Both gateways answer the same, and a cursor from one pages on the other.
    await waitProjected(pipeline, chain);
    const query = { chain: '0x7a69', limit: 3 };
    const firstPages = await Promise.all(
      gateways.map((gw) => gw.get(`/api/v2.2/${me}/erc20/transfers`, query)),
    );
    expect(firstPages.map((p) => p.status)).toEqual([200, 200]);
    expect(firstPages[1]!.raw).toBe(firstPages[0]!.raw);
    const cursor: string = firstPages[0]!.body.cursor;
    expect(cursor).not.toBe('');
    const secondPages = await Promise.all(
      gateways.map((gw) => gw.get(`/api/v2.2/${me}/erc20/transfers`, { ...query, cursor })),
    );
    expect(secondPages.map((p) => p.status)).toEqual([200, 200]);
    expect(secondPages[1]!.raw).toBe(secondPages[0]!.raw);
    expect(secondPages[0]!.body.result).toHaveLength(3);

    await assertTablesMatchChain(pipeline.pool, chain);
  }, 300_000);

  it('SIGKILL of the active projector and matcher: the standbys take over, nothing lost or doubled', async () => {
    expect(streamId).toBeDefined();
    const before = {
      projector: await roles('projector', 2),
      'stream-matcher': await roles('stream-matcher', 2),
    };
    const driver = driveBlocks();
    await waitFor('blocks in flight', () => driver.mined.length >= 5, { timeoutMs: 60_000 });

    const t0 = Date.now();
    await Promise.all([
      pipeline.kill('projector', before.projector.active),
      pipeline.kill('stream-matcher', before['stream-matcher'].active),
    ]);
    // Read once the killed members can no longer commit: what the standby commits moves past it.
    const offsetsAtKill = {
      projector: await committedOffsets(admin, groupOf('projector'), blocksTopic),
      'stream-matcher': await committedOffsets(admin, groupOf('stream-matcher'), blocksTopic),
    };

    /** Readiness checks of a server the process depends on (they fail when that server is slow). */
    const SERVER_CHECKS = new Set(['postgres', 'kafka', 'redis', 'rpc']);
    const takeovers = await Promise.all(
      (['projector', 'stream-matcher'] as const).map(async (app) => {
        const standby = before[app].standbys[0]!;
        const standbyPort = pipeline.running(app, standby)!.port;
        const seen: { assignedMs?: number; committedMs?: number } = {};
        const notReady: string[] = [];
        await waitFor(
          `the ${app} standby (instance ${standby}) to take over`,
          async () => {
            const ms = Date.now() - t0;
            const readyz = await fetch(`http://127.0.0.1:${standbyPort}/readyz`);
            const body = (await readyz.json()) as {
              checks?: Record<string, { ok: boolean; error?: string }>;
            };
            // Its own judgement of the work (a stall, a gap), not a server slow to answer on a busy machine.
            const own = Object.entries(body.checks ?? {}).filter(
              ([name, check]) => !check.ok && !SERVER_CHECKS.has(name),
            );
            if (own.length > 0) notReady.push(`${ms} ms: ${JSON.stringify(Object.fromEntries(own))}`);
            if (seen.assignedMs === undefined) {
              const members = await readGroupMembers(admin, groupOf(app), blocksTopic);
              const holder = members.find((m) => m.partitions.length > 0);
              if (holder && isClientOf(holder, pipeline.kafkaClientId(app, standby))) seen.assignedMs = ms;
            }
            if (seen.committedMs === undefined) {
              const now = await committedOffsets(admin, groupOf(app), blocksTopic);
              if ((now.get(0) ?? -1n) > (offsetsAtKill[app].get(0) ?? -1n)) seen.committedMs = ms;
            }
            return seen.assignedMs !== undefined && seen.committedMs !== undefined;
          },
          { timeoutMs: 150_000, intervalMs: 200, diagnostics: pipeline.diagnostics },
        );
        return { app, killed: before[app].active, standby, ...seen, standbyNotReady: notReady };
      }),
    );

    // The supervisor starts the killed processes again: they rejoin, and the group rebalances once more.
    await Promise.all([
      pipeline.start('projector', {}, before.projector.active),
      pipeline.start('stream-matcher', {}, before['stream-matcher'].active),
    ]);
    await Promise.all([roles('projector', 2), roles('stream-matcher', 2)]);
    await driver.stop();
    await mine(client, CONFIRMATIONS);

    const report = {
      kafkaSessionTimeoutMs: SESSION_TIMEOUT_MS,
      blocksMinedMeanwhile: driver.mined.length,
      takeovers,
    };
    console.log(`takeover after SIGKILL: ${JSON.stringify(report, null, 2)}`);
    writeFileSync(join(pipeline.logDir, 'takeover.json'), `${JSON.stringify(report, null, 2)}\n`);

    // A standby with nothing assigned has nothing waiting: it is never reported stalled.
    for (const t of takeovers) expect(t.standbyNotReady, t.app).toEqual([]);
    const webhooks = await expectEveryWebhookOnce();
    expect(webhooks).toBeGreaterThan(32 + 2 * 5);
    const delivered = await deliveredBySender();
    expect(delivered[0]! + delivered[1]!).toBe(webhooks);
    await waitProjected(pipeline, chain);
    await assertTablesMatchChain(pipeline.pool, chain);
  }, 420_000);
});
