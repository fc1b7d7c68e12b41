import { type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { demoTokenAbi } from '@tributary/contracts';
import {
  createBenchDatabase,
  envNumber,
  percentile,
  services,
  sleep,
  writeResult,
} from '@tributary/testkit/bench';
import { startAnvil } from '@tributary/testkit';
import type { Abi, Address } from 'viem';
import { createGatewayClient } from '../src/harness/createGatewayClient.ts';
import { startPipeline } from '../src/harness/startPipeline.ts';
import { startWebhookReceiver } from '../src/harness/startWebhookReceiver.ts';
import { send } from '../src/harness/tokenActivity.ts';

/**
 * A per-stream backfill of BENCH_BACKFILL_BLOCKS (10,000) blocks of one stream, with live
 * webhooks flowing beside it: the whole pipeline (follower, projector, gateway, matcher, sender)
 * on a private anvil. The history holds one transfer of the backfilled token every
 * BENCH_MATCH_EVERY (10) blocks; the follower starts at BENCH_FOLLOW_FROM (2,000), so the blocks
 * below come from the node and the others from the query tables. Live: a transfer of another
 * token every BENCH_LIVE_MS (500 ms) to a live stream, its latency (transfer mined -> unconfirmed
 * webhook received) measured for BENCH_QUIET_SECONDS (30) before the backfill and all through it.
 * Measures only; writes bench/results/stream-backfill.json.
 */
const blocks = envNumber('BENCH_BACKFILL_BLOCKS', 10_000);
const every = envNumber('BENCH_MATCH_EVERY', 10);
const followFrom = envNumber('BENCH_FOLLOW_FROM', 2_000);
const liveMs = envNumber('BENCH_LIVE_MS', 500);
const quietSeconds = envNumber('BENCH_QUIET_SECONDS', 30);
const say = (msg: string, fields: object = {}) => console.log(JSON.stringify({ msg, ...fields }));

async function buildHistory(client: DevnetClient, token: Address): Promise<number> {
  const me = client.account.address;
  const started = Date.now();
  for (let i = 0; i * every < blocks; i++) {
    await send(client, token, demoTokenAbi as Abi, 'mint', [me, BigInt(i + 1)]);
    await client.request({ method: 'anvil_mine', params: [`0x${(every - 1).toString(16)}`] } as never);
    if (i % 200 === 0)
      say('building history', { blocks: i * every, of: blocks, seconds: (Date.now() - started) / 1000 });
  }
  return Number(await client.getBlockNumber({ cacheTime: 0 }));
}

async function main() {
  const template = await createBenchDatabase();
  process.env['TRIBUTARY_TEST_TEMPLATE_DB'] = new URL(template.url).pathname.slice(1);
  process.env['DATABASE_URL'] ??= services.databaseUrl;
  process.env['REDIS_URL'] ??= services.redisUrl;
  process.env['KAFKA_BROKERS'] ??= services.kafkaBrokers;
  process.env['RPC_URL'] ??= services.rpcUrl;

  const anvil = await startAnvil();
  const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  const demo = await deployDemo(client);
  const head = await buildHistory(client, demo.demo);
  say('history built', { head });

  const receiver = await startWebhookReceiver();
  const liveSentAt = new Map<number, number>();
  const liveLatency: { at: number; ms: number }[] = [];
  const backfillArrivals: number[] = [];
  const seenLive = new Set<number>();
  receiver.answerWith((w) => {
    const now = Date.now();
    if (w.path === '/live' && w.body?.confirmed === false && w.body?.block) {
      const n = Number(w.body.block.number);
      const sent = liveSentAt.get(n);
      if (sent !== undefined && !seenLive.has(n)) {
        seenLive.add(n);
        liveLatency.push({ at: now, ms: now - sent });
      }
    }
    if (w.path === '/backfill' && w.body?.backfillId) backfillArrivals.push(now);
    return 200;
  });
  const pipeline = await startPipeline({
    name: 'bench-stream-backfill',
    apps: ['chain-follower', 'projector', 'gateway', 'stream-matcher', 'webhook-sender'],
    anvil,
    env: {
      'chain-follower': { START_BLOCK: String(followFrom), LOG_LEVEL: 'warn' },
      projector: { LOG_LEVEL: 'warn' },
      'stream-matcher': { LOG_LEVEL: 'warn' },
      'webhook-sender': { LOG_LEVEL: 'warn' },
      gateway: { LOG_LEVEL: 'warn' },
    },
  });
  try {
    const gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
    const createStream = async (path: string, token: Address) => {
      const created = await gw.request('PUT', '/streams/evm', {
        webhookUrl: `${receiver.url.replace(/\/webhook$/, '')}/${path}`,
        description: path,
        tag: path,
        chainIds: ['0x7a69'],
        includeContractLogs: true,
        topic0: ['Transfer(address,address,uint256)'],
        abi: [erc20TransferEventAbi],
      });
      if (created.status !== 200) throw new Error(`stream: ${created.raw}`);
      await gw.request('POST', `/streams/evm/${created.body.id}/address`, { address: token });
      return created.body.id as string;
    };
    const backfillStream = await createStream('backfill', demo.demo);
    await createStream('live', demo.six);

    say('waiting for the tables to hold the history');
    for (;;) {
      const { rows } = await pipeline.pool.query<{ n: string | null }>(
        'SELECT max(number) AS n FROM blocks WHERE confirmed',
      );
      if (Number(rows[0]?.n ?? -1) >= head) break;
      await sleep(1_000);
    }

    // Live traffic from here to the end.
    let live = true;
    const liveLoop = (async () => {
      const me = client.account.address;
      while (live) {
        const t0 = Date.now();
        await send(client, demo.six, demoTokenAbi as Abi, 'mint', [me, 1n]);
        const n = Number(await client.getBlockNumber({ cacheTime: 0 }));
        liveSentAt.set(n, t0);
        await sleep(Math.max(0, liveMs - (Date.now() - t0)));
      }
    })();
    say('live traffic, no backfill', { seconds: quietSeconds });
    await sleep(quietSeconds * 1000);
    const quietEnd = Date.now();

    const dry = await gw.request('POST', `/streams/evm/${backfillStream}/backfill`, {
      chainId: '0x7a69',
      fromBlock: 1,
      toBlock: blocks,
      dryRun: true,
    });
    const dryStarted = Date.now();
    let dryDone: Record<string, unknown>;
    for (;;) {
      const r = await gw.get(`/streams/evm/${backfillStream}/backfill/${dry.body.id}`);
      if (r.body.status !== 'running') {
        dryDone = r.body;
        break;
      }
      await sleep(250);
    }
    const drySeconds = (Date.now() - dryStarted) / 1000;
    say('dry run', { seconds: drySeconds, ...dryDone });

    const asked = await gw.request('POST', `/streams/evm/${backfillStream}/backfill`, {
      chainId: '0x7a69',
      fromBlock: 1,
      toBlock: blocks,
    });
    const started = Date.now();
    let done: Record<string, unknown>;
    let lastSaid = 0;
    for (;;) {
      const r = await gw.get(`/streams/evm/${backfillStream}/backfill/${asked.body.id}`);
      if (Date.now() - lastSaid > 10_000) {
        lastSaid = Date.now();
        say('backfill', {
          seconds: (Date.now() - started) / 1000,
          blocks: r.body.blocks,
          delivered: r.body.delivered,
        });
      }
      if (r.body.status !== 'running' && r.body.delivered >= r.body.webhooks) {
        done = r.body;
        break;
      }
      await sleep(500);
    }
    const backfillEnd = Date.now();
    live = false;
    await liveLoop;
    await sleep(2_000);

    const window = (from: number, to: number) => {
      const ms = liveLatency.filter((l) => l.at >= from && l.at < to).map((l) => l.ms);
      return {
        webhooks: ms.length,
        p50Ms: percentile(ms, 50),
        p99Ms: percentile(ms, 99),
        maxMs: Math.max(...ms),
      };
    };
    const seconds = (backfillEnd - started) / 1000;
    const result = {
      blocks,
      matchEvery: every,
      followFrom,
      dryRun: { seconds: drySeconds, blocksPerSecond: Math.round(blocks / drySeconds), ...dryDone },
      backfill: {
        ...done,
        seconds,
        blocksPerSecond: Math.round(blocks / seconds),
        webhooksPerSecond: Math.round((backfillArrivals.length / seconds) * 10) / 10,
        webhooksReceived: backfillArrivals.length,
      },
      liveLatency: {
        withoutBackfill: window(quietEnd - quietSeconds * 1000, quietEnd),
        duringBackfill: window(started, backfillEnd),
      },
      settings:
        'BACKFILL_BLOCKS_PER_SECOND 100, BACKFILL_CHUNK_BLOCKS 20, BACKFILL_MAX_PENDING 1000 (defaults)',
    };
    say('result', result);
    say('written', { path: writeResult('stream-backfill', result) });
  } finally {
    await pipeline.close();
    await receiver.close();
    await anvil.stop();
    await template.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
