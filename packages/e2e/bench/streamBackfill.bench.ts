import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bulkTransferEmitterAbi, bulkTransferEmitterBytecode } from '@tributary/contracts';
import { devnetAccount } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { envNumber, percentile, sleep, writeResult } from '@tributary/testkit/bench';
import { type Address, encodeFunctionData } from 'viem';
import { startChaosStack } from '../chaos/startChaosStack.ts';
import type { ChainDriver } from '../kinds/createChainDriver.ts';
import { createGatewayClient } from '../src/harness/createGatewayClient.ts';
import { startWebhookReceiver } from '../src/harness/startWebhookReceiver.ts';

/**
 * A per-stream backfill of BENCH_BACKFILL_BLOCKS (10,000) blocks of one stream, with live webhooks
 * flowing beside it: the whole stack (the chaos command's: servers of its own, the five services
 * under supervisors) on a private anvil. The history holds BENCH_LOGS_PER_MATCH (5) Transfer logs
 * of the backfilled contract every BENCH_MATCH_EVERY (10) blocks; the follower starts at
 * BENCH_FOLLOW_FROM (2,000), so the blocks below come from the node and the others from the query
 * tables. Live: a block with a Transfer of another contract every BENCH_LIVE_MS (500 ms) to a live
 * stream, its latency (block mined -> unconfirmed webhook received) measured for
 * BENCH_QUIET_SECONDS (30) before the backfill and all through it. The backfill runs with the
 * matcher's defaults. Measures only; writes bench/results/stream-backfill.json.
 */
const blocks = envNumber('BENCH_BACKFILL_BLOCKS', 10_000);
const every = envNumber('BENCH_MATCH_EVERY', 10);
const logsPerMatch = envNumber('BENCH_LOGS_PER_MATCH', 5);
const followFrom = envNumber('BENCH_FOLLOW_FROM', 2_000);
const liveMs = envNumber('BENCH_LIVE_MS', 500);
const quietSeconds = envNumber('BENCH_QUIET_SECONDS', 30);
const say = (msg: string, fields: object = {}) => console.log(JSON.stringify({ msg, ...fields }));
const from = devnetAccount(0);

const emit = (driver: ChainDriver, emitter: Address, count: number, seed: number) =>
  driver.mineBlock(async (send) => {
    await send({
      from,
      to: emitter,
      data: encodeFunctionData({
        abi: bulkTransferEmitterAbi,
        functionName: 'emitTransfers',
        args: ['0x00000000000000000000000000000000000b0b0b', BigInt(count), BigInt(seed)],
      }),
      gas: 100_000n + 10_000n * BigInt(count),
    });
  });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-backfill-bench-'));
  const stack = await startChaosStack({
    log: (line) => say(line),
    dir,
    env: { 'chain-follower': { START_BLOCK: String(followFrom) } },
  });
  const receiver = await startWebhookReceiver();
  try {
    const { driver } = stack;
    const history = (await driver.deploy(
      from,
      bulkTransferEmitterAbi,
      bulkTransferEmitterBytecode,
      [],
    )) as Address;
    const live = (await driver.deploy(
      from,
      bulkTransferEmitterAbi,
      bulkTransferEmitterBytecode,
      [],
    )) as Address;
    const started = Date.now();
    for (let i = 0; (await driver.head()) < blocks; i++) {
      await emit(driver, history, logsPerMatch, i + 1);
      await driver.mineEmpty(Math.min(every - 1, blocks - (await driver.head())));
      if (i % 100 === 0)
        say('building history', { head: await driver.head(), seconds: (Date.now() - started) / 1000 });
    }
    say('history built', { head: await driver.head(), seconds: (Date.now() - started) / 1000 });

    // Live blocks from here to the end, each stamped when mined.
    const minedAt = new Map<number, number>();
    let liveOn = true;
    const liveLoop = (async () => {
      for (let i = 0; liveOn; i++) {
        const at = Date.now();
        const block = await emit(driver, live, 1, i + 1);
        minedAt.set(block.number, at);
        await sleep(Math.max(0, liveMs - (Date.now() - at)));
      }
    })();
    const latency: { at: number; ms: number }[] = [];
    const backfillArrivals: number[] = [];
    const seen = new Set<number>();
    receiver.answerWith((w) => {
      const now = Date.now();
      if (w.path === '/live' && w.body?.confirmed === false && w.body?.block) {
        const n = Number(w.body.block.number);
        const at = minedAt.get(n);
        if (at !== undefined && !seen.has(n)) {
          seen.add(n);
          latency.push({ at: now, ms: now - at });
        }
      }
      if (w.path === '/backfill' && w.body?.backfillId) backfillArrivals.push(now);
      return 200;
    });

    const gw = createGatewayClient(stack.gatewayUrl, stack.apiKey.key);
    const createStream = async (path: string, address: Address) => {
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
      await gw.request('POST', `/streams/evm/${created.body.id}/address`, { address });
      return created.body.id as string;
    };
    const backfillStream = await createStream('backfill', history);
    await createStream('live', live);

    say('waiting for the tables to hold the history as final');
    for (;;) {
      const { rows } = await stack.pool.query<{ n: string | null }>(
        'SELECT max(number) AS n FROM blocks WHERE confirmed',
      );
      if (Number(rows[0]?.n ?? -1) >= blocks) break;
      await sleep(1_000);
    }
    say('live traffic, no backfill', { seconds: quietSeconds });
    const quietFrom = Date.now();
    await sleep(quietSeconds * 1000);
    const quietTo = Date.now();

    const ask = (dryRun: boolean) =>
      gw.request('POST', `/streams/evm/${backfillStream}/backfill`, {
        chainId: '0x7a69',
        fromBlock: 1,
        toBlock: blocks,
        dryRun,
      });
    const until = async (id: string, done: (b: Record<string, unknown>) => boolean) => {
      let said = 0;
      for (;;) {
        const r = await gw.get(`/streams/evm/${backfillStream}/backfill/${id}`);
        if (Date.now() - said > 10_000) {
          said = Date.now();
          say('backfill', {
            id,
            blocks: r.body.blocks,
            webhooks: r.body.webhooks,
            delivered: r.body.delivered,
          });
        }
        if (done(r.body)) return r.body as Record<string, unknown>;
        await sleep(250);
      }
    };
    const dryAsked = await ask(true);
    const dryStart = Date.now();
    const dry = await until(dryAsked.body.id, (b) => b['status'] !== 'running');
    const drySeconds = (Date.now() - dryStart) / 1000;
    say('dry run', { seconds: drySeconds, ...dry });

    const asked = await ask(false);
    const start = Date.now();
    let evaluatedAt = 0;
    const done = await until(asked.body.id, (b) => {
      if (b['status'] !== 'running' && evaluatedAt === 0) evaluatedAt = Date.now();
      return b['status'] !== 'running' && Number(b['delivered']) >= Number(b['webhooks']);
    });
    const end = Date.now();
    liveOn = false;
    await liveLoop;
    await sleep(3_000);

    const window = (a: number, b: number) => {
      const ms = latency
        .filter((l) => l.at >= a && l.at < b)
        .map((l) => l.ms)
        .sort((x, y) => x - y);
      return {
        webhooks: ms.length,
        p50Ms: percentile(ms, 50),
        p99Ms: percentile(ms, 99),
        maxMs: Math.max(...ms),
      };
    };
    const seconds = (end - start) / 1000;
    const result = {
      blocks,
      matchEvery: every,
      logsPerMatch,
      followFrom,
      liveBlockEveryMs: liveMs,
      dryRun: { seconds: drySeconds, blocksPerSecond: Math.round(blocks / drySeconds), ...dry },
      backfill: {
        ...done,
        secondsToEvaluate: (evaluatedAt - start) / 1000,
        secondsToDeliver: seconds,
        blocksPerSecond: Math.round((blocks / (evaluatedAt - start)) * 1000),
        webhooksReceived: backfillArrivals.length,
        webhooksPerSecond: Math.round((backfillArrivals.length / seconds) * 10) / 10,
      },
      liveLatency: {
        withoutBackfill: window(quietFrom, quietTo),
        duringBackfill: window(start, end),
      },
      settings:
        'matcher defaults: BACKFILL_BLOCKS_PER_SECOND 100, BACKFILL_CHUNK_BLOCKS 20, BACKFILL_MAX_PENDING 1000; follower CONFIRMATIONS 4',
    };
    say('result', result);
    say('written', { path: writeResult('stream-backfill', result) });
  } finally {
    await receiver.close();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
