import { type ChildProcess, spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { demoTokenAbi } from '@tributary/contracts';
import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { createLedgerApp, readBalances } from '@tributary/receiver/example';
import { type TestDatabase, createTestDatabase, startAnvil } from '@tributary/testkit';
import pg from 'pg';
import { type Abi, type Address, type PublicClient, parseAbiItem } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { alice, bob, mine, send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// `pnpm listen` as a developer runs it: the CLI long-polls the gateway for a stream's webhooks and
// POSTs each to the example ledger receiver (the receiver kit) on this machine. No webhook-sender
// runs at all: nothing reaches the receiver but the CLI. The gateway is restarted mid-way: the CLI
// reconnects with its cursor, and every webhook the stream got arrives once, verified by the kit.
const CONFIRMATIONS = 3;
const erc20 = demoTokenAbi as Abi;
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const LISTEN_CLI = fileURLToPath(new URL('../../receiver/src/cli/listen.ts', import.meta.url));
const RECEIVER_DIR = fileURLToPath(new URL('../../receiver', import.meta.url));

let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let receiverDb: TestDatabase;
let pool: pg.Pool;
let server: Server;
let createWebhook: WebhookReceiver;
let streamId: string;
let cli: ChildProcess | undefined;
const lines: string[] = [];
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  await send(client, demo.demo, erc20, 'mint', [client.account.address, 10n ** 24n]);
  pipeline = await startPipeline({
    name: 'listen',
    apps: ['chain-follower', 'stream-matcher', 'gateway'],
    anvil,
    env: { 'chain-follower': { CONFIRMATIONS: String(CONFIRMATIONS) } },
  });
  const gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  const secret = (await gw.get('/settings')).body.secretKey as string;

  receiverDb = await createTestDatabase({ migrated: false });
  pool = new pg.Pool({ connectionString: receiverDb.url, max: 4 });
  // Dropping the database at the end terminates the connections still closing.
  pool.on('error', () => undefined);
  const { app } = await createLedgerApp({ pool, secrets: [secret] });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));

  // The stream's own URL only answers the create's test webhook: no sender runs to POST to it.
  createWebhook = await startWebhookReceiver();
  const created = await gw.request('PUT', '/streams/evm', {
    webhookUrl: createWebhook.url,
    description: 'listen',
    tag: 'listen',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  });
  expect(created.status).toBe(200);
  streamId = created.body.id;
  expect((await gw.request('POST', `/streams/evm/${streamId}/address`, { address: demo.demo })).status).toBe(
    200,
  );

  cli = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      LISTEN_CLI,
      '--stream',
      streamId,
      '--forward-to',
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    ],
    {
      cwd: RECEIVER_DIR,
      env: { ...process.env, TRIBUTARY_API_KEY: pipeline.apiKey.key, TRIBUTARY_API_URL: pipeline.gatewayUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let partial = '';
  const collect = (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    lines.push(...complete);
  };
  cli.stdout?.on('data', collect);
  cli.stderr?.on('data', collect);
  await waitFor('the listen command to start', () => lines.some((l) => l.includes('listening to stream')), {
    timeoutMs: 60_000,
    diagnostics: () => lines.join('\n'),
  });
}, 240_000);

afterAll(async () => {
  if (cli && cli.exitCode === null) {
    const exited = new Promise((resolve) => cli?.once('exit', resolve));
    cli.kill('SIGINT');
    await exited;
  }
  await pipeline?.close();
  // Every request answered (and its client back in the pool) before the pool ends.
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await createWebhook?.close();
  await pool?.end();
  await receiverDb?.drop();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics(), lines.join('\n')));
});

/** The CLI's line of each forwarded webhook: its time, the local answer, the block, kind, webhook-id and answer body. */
const FORWARDED = /^\S+ (\d{3}|ERR) block (\d+) (unconfirmed|confirmed|removed) ([0-9a-f-]{36})(?: (.*))?$/;
const forwarded = () =>
  lines.flatMap((l) => {
    const m = FORWARDED.exec(l);
    return m ? [{ status: m[1]!, block: BigInt(m[2]!), kind: m[3]!, id: m[4]!, answer: m[5] ?? '' }] : [];
  });

async function transferBlock(to: Address, value: bigint): Promise<bigint> {
  const hash = await send(client, demo.demo, erc20, 'transfer', [to, value]);
  return (await chain.getTransactionReceipt({ hash })).blockNumber;
}

describe('pnpm listen', () => {
  it('forwards every webhook of the stream once, signed, to the local receiver, across a gateway restart', async () => {
    const first = await transferBlock(alice, 100n);
    await transferBlock(bob, 20n);
    const seen = (block: bigint, kind: string) =>
      forwarded().some((f) => f.block === block && f.kind === kind);
    await waitFor('the first webhooks forwarded', () => seen(first + 1n, 'unconfirmed'), {
      timeoutMs: 60_000,
      diagnostics: () => lines.join('\n'),
    });

    // The gateway goes away; the chain goes on; the CLI keeps its cursor and comes back.
    // A gateway holding a listener's long poll still stops within its deadline, cleanly.
    expect(await pipeline.stop('gateway')).toEqual({ code: 0, signal: null });
    const whileDown = [await transferBlock(alice, 3n), await transferBlock(bob, 4n)];
    await waitFor('the CLI to see the gateway gone', () => lines.some((l) => l.includes('connection lost')), {
      timeoutMs: 60_000,
      diagnostics: () => lines.join('\n'),
    });
    await pipeline.start('gateway');
    await waitFor(
      'the webhooks stored while the gateway was down',
      () => whileDown.every((b) => seen(b, 'unconfirmed')),
      {
        timeoutMs: 60_000,
        diagnostics: () => lines.join('\n'),
      },
    );
    expect(lines.some((l) => l.endsWith('reconnected'))).toBe(true);

    // Everything confirmed and forwarded.
    await mine(client, CONFIRMATIONS + 1);
    const transferBlocks = [first, first + 1n, ...whileDown];
    await waitFor(
      'every confirmed webhook forwarded',
      () => transferBlocks.every((b) => seen(b, 'confirmed')),
      {
        timeoutMs: 60_000,
        diagnostics: () => lines.join('\n'),
      },
    );
    await new Promise((r) => setTimeout(r, 1_000));

    // Once each: the forwarded ids are exactly the stream's stored deliveries, no repeats, every
    // one verified and handled by the kit (a bad signature would be a 401 line).
    const all = forwarded();
    const { rows } = await pipeline.pool.query<{ id: string }>(
      'SELECT id FROM deliveries WHERE stream_id = $1 ORDER BY created_at, id',
      [streamId],
    );
    expect(all.map((f) => f.id)).toEqual(rows.map((r) => r.id));
    expect(all.length).toBe(transferBlocks.length * 2);
    for (const f of all) {
      expect(f.status, f.answer).toBe('200');
      expect(JSON.parse(f.answer)).toEqual({ outcome: 'handled', released: 0, webhookId: f.id });
    }

    // The example ledger holds what the chain's transfers add up to, all confirmed.
    const logs = await chain.getLogs({ address: demo.demo, event: transferEvent, fromBlock: first });
    const sums = new Map<string, bigint>();
    for (const log of logs) {
      const { from, to, value } = log.args as { from: Address; to: Address; value: bigint };
      sums.set(from.toLowerCase(), (sums.get(from.toLowerCase()) ?? 0n) - value);
      sums.set(to.toLowerCase(), (sums.get(to.toLowerCase()) ?? 0n) + value);
    }
    const balances = await readBalances(pool, demo.demo);
    expect(balances.every((b) => b.pending === '0')).toBe(true);
    expect(Object.fromEntries(balances.map((b) => [b.account, b.confirmed]))).toEqual(
      Object.fromEntries([...sums].map(([k, v]) => [k, v.toString()])),
    );
  }, 300_000);
});
