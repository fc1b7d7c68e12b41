import { demoTokenAbi } from '@tributary/contracts';
import {
  type DemoDeployment,
  type DevnetClient,
  createDevnetClient,
  deployDemo,
  devnetAccount,
} from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { TOPICS } from '@tributary/schema';
import { getTestSettings, startAnvil } from '@tributary/testkit';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import type { Kafka } from 'kafkajs';
import type { Abi, Address, PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertTablesMatchChain } from './harness/assertTablesMatchChain.ts';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { mine, send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// A Kafka that lost its log never makes a consumer skip blocks. The projector and the matcher are
// stopped while blocks are published, then the block topic loses what they had not read: its
// records deleted (retention shorter than an outage), or the topic deleted and made again (a broker
// recreated without its volume). Started again, both find the gap, ask the follower to publish the
// missing blocks again, and the tables and the webhooks end up as the chain says.
const erc20 = demoTokenAbi as Abi;
const wallet = devnetAccount(4).address.toLowerCase() as Address;
const CONFIRMATIONS = 2;

let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let gw: GatewayClient;
let receiver: WebhookReceiver;
let kafka: Kafka;
const streams: { logs: string; native: string } = { logs: '', native: '' };
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  await send(client, demo.demo, erc20, 'mint', [client.account.address, 10n ** 24n]);
  receiver = await startWebhookReceiver();
  pipeline = await startPipeline({
    name: 'kafka-log-loss',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  kafka = createKafka({
    clientId: 'log-loss',
    brokers: getTestSettings().kafkaBrokers,
    logger: createLogger('log-loss', 'silent'),
  });
  const base = { webhookUrl: receiver.url, description: 'log loss', chainIds: ['0x7a69'] };
  const logs = await gw.request('PUT', '/streams/evm', {
    ...base,
    tag: 'logs',
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  });
  const native = await gw.request('PUT', '/streams/evm', { ...base, tag: 'native', includeNativeTxs: true });
  expect([logs.status, native.status]).toEqual([200, 200]);
  streams.logs = logs.body.id;
  streams.native = native.body.id;
  expect(
    (await gw.request('POST', `/streams/evm/${streams.logs}/address`, { address: demo.demo })).status,
  ).toBe(200);
  expect(
    (await gw.request('POST', `/streams/evm/${streams.native}/address`, { address: wallet })).status,
  ).toBe(200);
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

const topic = () => `${pipeline.topicPrefix}${TOPICS.blocks}`;

/** A block with a Transfer of the demo token and a block with a native transfer to the wallet, each time. */
async function activity(rounds: number): Promise<bigint[]> {
  const blocks: bigint[] = [];
  for (let i = 0; i < rounds; i++) {
    const a = await send(client, demo.demo, erc20, 'transfer', [wallet, BigInt(i + 1)]);
    const b = await client.sendTransaction({ to: wallet, value: BigInt(i + 1) });
    const ra = await chain.waitForTransactionReceipt({ hash: a });
    const rb = await chain.waitForTransactionReceipt({ hash: b });
    blocks.push(ra.blockNumber, rb.blockNumber);
  }
  return blocks;
}

/** Both webhooks (unconfirmed and confirmed) of `stream` for each block. */
async function webhooksArrive(stream: string, blocks: bigint[]) {
  for (const block of blocks)
    for (const confirmed of [false, true])
      await waitFor(
        `the ${confirmed ? 'confirmed' : 'unconfirmed'} webhook of block ${block} to stream ${stream}`,
        () =>
          receiver.received.find(
            (w) =>
              w.acknowledged &&
              w.body?.streamId === stream &&
              w.body.block?.number === String(block) &&
              w.body.confirmed === confirmed,
          ),
        { timeoutMs: 180_000, diagnostics: () => pipeline.diagnostics() },
      );
}

/** The blocks of `stream`'s expected webhooks: a transfer of the token, or a native transfer to the wallet. */
async function dueBlocks(from: bigint, to: bigint) {
  const out = { logs: [] as bigint[], native: [] as bigint[] };
  for (let n = from; n <= to; n++) {
    const block = await chain.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (tx.to?.toLowerCase() === demo.demo.toLowerCase()) out.logs.push(n);
      if (tx.to?.toLowerCase() === wallet) out.native.push(n);
    }
  }
  return out;
}

/** The consumers' count of gaps found, read from their /metrics. */
async function gapsCounted(app: 'projector' | 'stream-matcher'): Promise<number> {
  const port = pipeline.running(app)!.port;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('tributary_consumer_gaps_total{') && l.includes('kind="offsets"'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

async function lossAndRecovery(lose: () => Promise<void>) {
  await activity(1);
  await mine(client, CONFIRMATIONS + 1);
  await waitProjected(pipeline, chain);
  const before = BigInt(await chain.getBlockNumber({ cacheTime: 0 }));

  await pipeline.stop('projector');
  await pipeline.stop('stream-matcher');
  await activity(3);
  await mine(client, CONFIRMATIONS + 1);
  const head = BigInt(await chain.getBlockNumber({ cacheTime: 0 }));
  await waitFor('the follower at the head', async () => {
    const { rows } = await pipeline.pool.query<{ n: string }>(
      'SELECT block_number AS n FROM follower_checkpoints WHERE chain_id = 31337',
    );
    return BigInt(rows[0]?.n ?? -1) >= head ? true : undefined;
  });
  await lose();

  await pipeline.start('projector');
  await pipeline.start('stream-matcher');
  // Found and said by both consumers, which ask the follower to publish the blocks again.
  await mine(client, 1);
  await waitFor('both consumers to count the gap', async () =>
    (await gapsCounted('projector')) > 0 && (await gapsCounted('stream-matcher')) > 0 ? true : undefined,
  );
  // The last blocks are published again once they are final.
  await mine(client, CONFIRMATIONS + 1);
  await waitFor(
    'the blocks published again',
    async () => {
      const { rows } = await pipeline.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM backfill_requests WHERE finished_at IS NULL',
      );
      return rows[0]?.n === '0' ? true : undefined;
    },
    { timeoutMs: 120_000, diagnostics: pipeline.diagnostics },
  );
  await waitProjected(pipeline, chain);
  await assertTablesMatchChain(pipeline.pool, chain);
  const due = await dueBlocks(before + 1n, head);
  expect(due.logs.length).toBe(3);
  expect(due.native.length).toBe(3);
  await webhooksArrive(streams.logs, due.logs);
  await webhooksArrive(streams.native, due.native);
}

describe('a Kafka that lost its log', { timeout: 360_000 }, () => {
  it('retention deleted messages the consumers had not read: the blocks are published again, nothing is missing', async () => {
    await lossAndRecovery(async () => {
      const admin = kafka.admin();
      await admin.connect();
      const offsets = await admin.fetchTopicOffsets(topic());
      await admin.deleteTopicRecords({
        topic: topic(),
        partitions: offsets.map((p) => ({ partition: p.partition, offset: p.high })),
      });
      await admin.disconnect();
    });
  });

  it('the topic deleted and made again empty (a broker recreated without its volume): nothing is missing', async () => {
    await lossAndRecovery(async () => {
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [topic()] });
      await admin.createTopics({ topics: [{ topic: topic() }], waitForLeaders: true }).catch(() => false);
      await admin.disconnect();
      // The follower publishes the next block to the new topic.
      await mine(client, 1);
    });
  });
});
