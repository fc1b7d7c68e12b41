import type { AddressInfo } from 'node:net';
import { demoTokenAbi } from '@tributary/contracts';
import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { type HandlerContext, type WebhookBody, createReceiver } from '@tributary/receiver';
import { ensureLedger, ledgerHandlers, readBalances } from '@tributary/receiver/example';
import { type TestDatabase, createTestDatabase, startAnvil } from '@tributary/testkit';
import express from 'express';
import pg from 'pg';
import { type Abi, type Address, type Hash, type PublicClient, parseAbiItem } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { alice, bob, mine, send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// The receiver kit against real webhooks: the whole pipeline POSTs a token's transfers to an
// express app whose handlers are the example ledger's. The first deliveries are made to fail after
// the kit committed (the answer lost: the sender redelivers) or in the handler (the transaction
// rolled back: the retry handles it); a reorg orphans two blocks that were sent unconfirmed. At
// the end every webhook was verified and handled exactly once, each orphaned block was undone by
// its removal notice, and the ledger holds what the canonical chain's transfers add up to.
const CONFIRMATIONS = 6;
const erc20 = demoTokenAbi as Abi;
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let receiverDb: TestDatabase;
let pool: pg.Pool;
let server: import('node:http').Server;
let stopAnvil: () => Promise<void> = async () => {};

/** Every answer the receiver gave, in order. */
const answers: {
  webhookId: string;
  status: number;
  outcome: string;
  block: string;
  kind: string;
  reason?: string;
}[] = [];
/**
 * Faults given to the next new webhook-ids, in their order of arrival: `lose` answers 500 after the
 * kit committed (the answer lost), `crash` makes the handler throw once after writing.
 */
const faultsToAssign: ('lose' | 'crash')[] = [];
const seen = new Set<string>();
const loseAnswer = new Set<string>();
const crashOnce = new Set<string>();
const faulted = new Set<string>();

function kindOf(raw: Buffer): { block: string; kind: string } {
  const body = JSON.parse(raw.toString('utf8')) as WebhookBody;
  return {
    block: body.block.hash,
    kind: body.removed ? 'removal' : body.confirmed ? 'confirmed' : 'unconfirmed',
  };
}

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  await send(client, demo.demo, erc20, 'mint', [client.account.address, 10n ** 24n]);
  pipeline = await startPipeline({
    name: 'receiver-kit',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
    env: { 'chain-follower': { CONFIRMATIONS: String(CONFIRMATIONS) } },
  });
  const gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  const secret = (await gw.get('/settings')).body.secretKey as string;

  // The receiver: its own database, the example ledger's handlers, faults on the first webhooks.
  receiverDb = await createTestDatabase({ migrated: false });
  pool = new pg.Pool({ connectionString: receiverDb.url, max: 4 });
  // Dropping the database at the end terminates the connections still closing.
  pool.on('error', () => undefined);
  await ensureLedger(pool);
  const receiver = createReceiver({
    pool,
    secrets: [secret],
    onWebhook: async (webhook: WebhookBody, ctx: HandlerContext) => {
      await ledgerHandlers.onWebhook(webhook, ctx);
      if (crashOnce.has(ctx.webhookId) && !faulted.has(`crash:${ctx.webhookId}`)) {
        faulted.add(`crash:${ctx.webhookId}`);
        throw new Error('the receiver crashed mid-handler');
      }
    },
    onRemoved: ledgerHandlers.onRemoved,
  });
  const app = express();
  app.post('/webhook', express.raw({ type: '*/*' }), async (req, res) => {
    const webhookId = String(req.headers['webhook-id']);
    if (!seen.has(webhookId)) {
      seen.add(webhookId);
      const fault = faultsToAssign.shift();
      if (fault === 'lose') loseAnswer.add(webhookId);
      if (fault === 'crash') crashOnce.add(webhookId);
    }
    const answer = await receiver.handle({ headers: req.headers, rawBody: req.body as Buffer });
    answers.push({
      webhookId,
      status: answer.status,
      outcome: answer.body.outcome,
      ...kindOf(req.body as Buffer),
      ...('reason' in answer.body ? { reason: answer.body.reason } : {}),
    });
    const committed = answer.body.outcome === 'handled' || answer.body.outcome === 'removed';
    if (committed && loseAnswer.has(webhookId) && !faulted.has(`lost:${webhookId}`)) {
      faulted.add(`lost:${webhookId}`);
      res.status(500).json({ outcome: 'the answer was lost' });
      return;
    }
    res.status(answer.status).json(answer.body);
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;

  const created = await gw.request('PUT', '/streams/evm', {
    webhookUrl: url,
    description: 'receiver kit',
    tag: 'kit',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    notifyRemovals: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  });
  expect(created.status).toBe(200);
  expect(
    (await gw.request('POST', `/streams/evm/${created.body.id}/address`, { address: demo.demo })).status,
  ).toBe(200);
}, 240_000);

afterAll(async () => {
  await pipeline?.close();
  // Every request answered (and its client back in the pool) before the pool ends.
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await pool?.end();
  await receiverDb?.drop();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics(), JSON.stringify(answers, null, 1)));
});

async function transferBlock(to: Address, value: bigint): Promise<{ number: bigint; hash: Hash }> {
  const hash = await send(client, demo.demo, erc20, 'transfer', [to, value]);
  const receipt = await chain.getTransactionReceipt({ hash });
  return { number: receipt.blockNumber, hash: receipt.blockHash };
}

const answered = (block: string, kind: string, outcomes: string[]) =>
  answers.some((a) => a.block === block && a.kind === kind && outcomes.includes(a.outcome));

/** What the canonical chain's transfers of the token add up to per account, from `fromBlock` on. */
async function expectedBalances(fromBlock: bigint): Promise<Record<string, string>> {
  const logs = await chain.getLogs({
    address: demo.demo,
    event: transferEvent,
    fromBlock,
    toBlock: 'latest',
  });
  const sums = new Map<string, bigint>();
  const zero = '0x0000000000000000000000000000000000000000';
  for (const log of logs) {
    const { from, to, value } = log.args as { from: Address; to: Address; value: bigint };
    if (from.toLowerCase() !== zero)
      sums.set(from.toLowerCase(), (sums.get(from.toLowerCase()) ?? 0n) - value);
    if (to.toLowerCase() !== zero) sums.set(to.toLowerCase(), (sums.get(to.toLowerCase()) ?? 0n) + value);
  }
  return Object.fromEntries([...sums].filter(([, v]) => v !== 0n).map(([k, v]) => [k, v.toString()]));
}

describe('the receiver kit with real webhooks', () => {
  it('verifies and handles every webhook exactly once through redeliveries and a reorg; the ledger matches the chain', async () => {
    const me = client.account.address;
    const first = await transferBlock(alice, 1_000n);
    await waitFor(
      "the first block's unconfirmed webhook",
      () => answered(first.hash, 'unconfirmed', ['handled']),
      { timeoutMs: 90_000, diagnostics: () => pipeline.diagnostics() },
    );
    // Faults for the next three webhooks.
    faultsToAssign.push('lose', 'crash', 'lose');
    const faultyBlocks = [
      await transferBlock(bob, 200n),
      await transferBlock(me, 30n),
      await transferBlock(alice, 4n),
    ];
    await waitFor(
      'the unconfirmed webhooks of the faulty blocks',
      () => faultyBlocks.every((b) => answered(b.hash, 'unconfirmed', ['handled'])),
      { timeoutMs: 60_000, diagnostics: () => pipeline.diagnostics() },
    );

    // A reorg: two blocks sent unconfirmed, then orphaned by a longer branch.
    const snapshot = (await client.request({ method: 'evm_snapshot' } as never)) as string;
    const orphaned = [await transferBlock(bob, 7_000n), await transferBlock(alice, 8_000n)];
    await waitFor(
      'the unconfirmed webhooks of the branch to be orphaned',
      () => orphaned.every((b) => answered(b.hash, 'unconfirmed', ['handled'])),
      { timeoutMs: 60_000, diagnostics: () => pipeline.diagnostics() },
    );
    const pendingBefore = await readBalances(pool, demo.demo);
    expect(pendingBefore.find((b) => b.account === alice)?.pending).not.toBe('0');
    expect((await client.request({ method: 'evm_revert', params: [snapshot] } as never)) as unknown).toBe(
      true,
    );
    for (let i = 0; i < 3; i++) await transferBlock(i % 2 ? bob : alice, BigInt(500 + i));
    await waitFor(
      'a removal notice applied for each orphaned block',
      () => orphaned.every((b) => answered(b.hash, 'removal', ['removed'])),
      { timeoutMs: 90_000, diagnostics: () => pipeline.diagnostics() },
    );

    // Everything confirmed.
    await mine(client, CONFIRMATIONS + 2);
    const head = await chain.getBlockNumber();
    const canonical = (
      await chain.getLogs({ address: demo.demo, event: transferEvent, fromBlock: first.number })
    ).filter((l) => l.blockNumber <= head);
    await waitFor(
      'the confirmed webhook of every canonical transfer block',
      () => canonical.every((l) => answered(l.blockHash, 'confirmed', ['handled'])),
      { timeoutMs: 120_000, diagnostics: () => pipeline.diagnostics() },
    );
    await new Promise((r) => setTimeout(r, 2_000));

    // Verified: no refusals. Exactly once: one committed handling per webhook-id, whatever the retries.
    expect(answers.filter((a) => a.status === 401 || a.status === 400)).toEqual([]);
    const committedPerId = new Map<string, number>();
    for (const a of answers)
      if (a.outcome === 'handled' || a.outcome === 'removed')
        committedPerId.set(a.webhookId, (committedPerId.get(a.webhookId) ?? 0) + 1);
    expect([...committedPerId.values()].every((n) => n === 1)).toBe(true);
    const { rows } = await pool.query<{ webhook_id: string; state: string }>(
      'SELECT webhook_id, state FROM tributary_received_webhooks ORDER BY webhook_id',
    );
    expect(rows.map((r) => r.webhook_id).sort()).toEqual(
      [...new Set(answers.filter((a) => a.outcome !== 'test').map((a) => a.webhookId))].sort(),
    );
    expect(rows.every((r) => r.state === 'handled')).toBe(true);
    // The faults happened, and were absorbed: redeliveries answered duplicate, crashes retried.
    for (const id of loseAnswer) {
      const of = answers.filter((a) => a.webhookId === id).map((a) => a.outcome);
      expect(of[0]).toBe('handled');
      expect(of.slice(1)).toContain('duplicate');
    }
    for (const id of crashOnce) {
      const of = answers.filter((a) => a.webhookId === id).map((a) => a.outcome);
      expect(of).toEqual(['failed', 'handled']);
    }
    expect(loseAnswer.size + crashOnce.size).toBe(3);
    // Orphans: undone once each, never confirmed.
    for (const b of orphaned) {
      expect(answers.filter((a) => a.block === b.hash && a.outcome === 'removed')).toHaveLength(1);
      expect(answered(b.hash, 'confirmed', ['handled'])).toBe(false);
    }

    // The ledger: every canonical transfer once, nothing pending, no trace of the orphans.
    const balances = await readBalances(pool, demo.demo);
    expect(balances.every((b) => b.pending === '0')).toBe(true);
    expect(
      Object.fromEntries(balances.filter((b) => b.confirmed !== '0').map((b) => [b.account, b.confirmed])),
    ).toEqual(await expectedBalances(first.number));
  }, 420_000);
});
