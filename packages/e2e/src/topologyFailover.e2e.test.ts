import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProducer, createKafka } from '@tributary/bus';
import { erc20TransferEventAbi } from '@tributary/evm';
import { type FullBlockEvent, TOPICS } from '@tributary/schema';
import { writeResult } from '@tributary/testkit/bench';
import type { Producer } from 'kafkajs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TopologyServers, startTopologyServers } from '../topology/startTopologyServers.ts';
import { measurePause } from '../topology/measurePause.ts';
import { createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { transferBlockEvent } from './harness/transferBlockEvent.ts';
import { waitFor } from './harness/waitFor.ts';

// The gateway, the matcher and the sender on three Kafka brokers and Redis under Sentinel (the
// production topologies of RELIABILITY.md), fed block events as the follower publishes them, each
// with a transfer a stream watches. A third of the way, the leader broker of the block topic and
// the Redis master are SIGKILLed; every block's unconfirmed and confirmed webhooks must still
// arrive. The pause in arrivals is written to bench/results/topology-pipeline-failover.json, not
// asserted.
//
// Run only with TOPOLOGY_E2E=1: it starts three more brokers and five Redis processes. In one run of
// two the webhook-sender's relay queue client ended for good after the failover ("Connection is
// closed") and its worker took no more jobs; such a queue now reports itself broken
// (openWebhookQueue) and the sender exits for its supervisor, played here by superviseSender.
const CHAIN = 31337;
const BLOCKS = Number(process.env['TOPOLOGY_E2E_BLOCKS'] ?? 120);
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const ENABLED = process.env['TOPOLOGY_E2E'] === '1';
const TOKEN = addr(0x70c0);
const ALICE = addr(0xa11ce);
const BOB = addr(0xb0b);

let dir: string | undefined;
let servers: TopologyServers | undefined;
let pipeline: Pipeline | undefined;
let receiver: WebhookReceiver;
let producer: Producer | undefined;
const arrivals: number[] = [];
/** Exit codes of the sender's processes that the supervisor below started again. */
const senderExits: (number | null)[] = [];
let supervising = true;

/** As a supervisor does (npm start, compose, Kubernetes): a sender that exits is started again. */
async function superviseSender(): Promise<void> {
  while (supervising) {
    const running = pipeline?.running('webhook-sender');
    if (!running) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const info = await running.exited;
    if (!supervising) return;
    senderExits.push(info.code);
    await pipeline?.start('webhook-sender').catch(() => undefined);
  }
}

beforeAll(async () => {
  if (!ENABLED) return;
  dir = mkdtempSync(join(tmpdir(), 'tributary-topology-e2e-'));
  servers = await startTopologyServers(dir);
  receiver = await startWebhookReceiver();
  receiver.answerWith(() => {
    arrivals.push(Date.now());
    return 200;
  });
  const env = { ...servers.env };
  pipeline = await startPipeline({
    name: 'topology',
    apps: ['gateway', 'stream-matcher', 'webhook-sender'],
    env: { gateway: env, 'stream-matcher': env, 'webhook-sender': { ...env, SENDER_CONCURRENCY: '10' } },
  });
  void superviseSender();
  producer = createProducer(
    createKafka({ brokers: env['KAFKA_BROKERS']!.split(','), clientId: 'e2e' }),
    'ordered',
  );
  await producer.connect();
}, 300_000);

afterAll(async () => {
  supervising = false;
  await producer?.disconnect().catch(() => undefined);
  await pipeline?.close();
  await receiver?.close();
  await servers?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 180_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

describe.skipIf(!ENABLED)('a broker and the Redis master lost under delivery load', () => {
  it('delivers every webhook of every block', async () => {
    const p = pipeline!;
    const gw = createGatewayClient(p.gatewayUrl, p.apiKey.key);
    const created = await gw.request('PUT', '/streams/evm', {
      webhookUrl: `${receiver.url.replace(/\/webhook$/, '')}/topology`,
      description: 'topology',
      tag: 'topology',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    });
    expect(created.status).toBe(200);
    expect(
      (await gw.request('POST', `/streams/evm/${created.body.id}/address`, { address: TOKEN })).status,
    ).toBe(200);
    const topic = `${p.topicPrefix}${TOPICS.blocks}`;
    const admin = createKafka({
      brokers: servers!.env['KAFKA_BROKERS']!.split(','),
      clientId: 'e2e-admin',
    }).admin();
    await admin.connect();
    const leader = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions[0]?.leader;
    await admin.disconnect();
    expect(leader).toBeGreaterThan(0);

    let killedAt = 0;
    const first = 1000;
    for (let n = first; n < first + BLOCKS; n++) {
      if (n === first + Math.floor(BLOCKS / 3)) {
        // Both at once: the block topic's leader and the queue's master.
        await Promise.all([servers!.killBroker(leader as number), servers!.killRedisMaster()]);
        killedAt = Date.now();
      }
      for (const type of ['new', 'confirmed'] as const)
        await producer!.send({
          topic,
          acks: -1,
          messages: [{ key: String(CHAIN), value: JSON.stringify(transferBlock(n, type)) }],
        });
    }

    const due = new Set<string>();
    for (let n = first; n < first + BLOCKS; n++) for (const c of [false, true]) due.add(`${n}:${c}`);
    const seen = () =>
      new Set(
        receiver.received
          .filter((w) => w.path === '/topology' && w.body?.streamId)
          .map((w) => `${Number(w.body.block.number)}:${w.body.confirmed}`),
      );
    await waitFor('every webhook', () => [...due].every((k) => seen().has(k)), {
      timeoutMs: 240_000,
      intervalMs: 500,
    });
    const got = seen();
    expect([...due].filter((k) => !got.has(k))).toEqual([]);
    const pause = measurePause(
      [...arrivals].sort((a, b) => a - b),
      killedAt,
    );
    const duplicates =
      receiver.received.filter((w) => w.path === '/topology' && w.body?.streamId).length - got.size;
    console.log(
      `topology e2e: ${got.size}/${due.size} webhooks, ${duplicates} sent again; arrivals paused ${pause.longestGapMs} ms, ` +
        `first ${pause.killToFirstAckMs} ms after the kills; the sender exited ${JSON.stringify(senderExits)} and was started again`,
    );
    writeResult('topology-pipeline-failover', {
      blocks: BLOCKS,
      webhooks: got.size,
      duplicates,
      senderExits,
      pause,
    });
  }, 600_000);
});

/** A block with one ERC20 transfer on TOKEN, as the follower publishes it. */
function transferBlock(n: number, type: 'new' | 'confirmed'): FullBlockEvent {
  return transferBlockEvent({
    chainId: CHAIN,
    number: n,
    token: TOKEN,
    from: ALICE,
    to: BOB,
    value: 1000n + BigInt(n),
    type,
  });
}
