import { demoTokenAbi, eventEmitterAbi } from '@tributary/contracts';
import {
  type DemoDeployment,
  type DevnetClient,
  createDevnetClient,
  deployDemo,
  waitMined,
} from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { startAnvil } from '@tributary/testkit';
import Moralis from 'moralis';
import { type Abi, type Address, type Hash, type PublicClient, keccak256, stringToBytes } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC0, decodeChainTransfer, readToken } from './harness/chainTruth.ts';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import {
  type ReceivedWebhook,
  type WebhookReceiver,
  startWebhookReceiver,
} from './harness/startWebhookReceiver.ts';
import { BIG, alice, bob, mine, send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// The stream pipeline on real parts: follower -> Kafka -> stream-matcher -> BullMQ -> webhook-sender
// -> a receiver on 127.0.0.1, with streams managed through the gateway (and the projector filling
// the token table the matcher reads names from). Every service is a child process.
const TEST_WEBHOOK_BODY =
  '{"abi":[],"block":{"hash":"","number":"","timestamp":""},"txs":[],"txsInternal":[],"tag":"","streamId":"","logs":[],"chainId":"","confirmed":true,"retries":0,"erc20Approvals":[],"erc20Transfers":[],"nftApprovals":{"ERC721":[],"ERC1155":[]},"nftTokenApprovals":[],"nftTransfers":[],"nativeBalances":[]}';
const erc20 = demoTokenAbi as Abi;
/** valueWithDecimals of the demo token amounts this file sends, at its 18 decimals, worked out by hand. */
const DEMO_AMOUNTS: Record<string, string> = {
  '0': '0',
  '5': '0.000000000000000005',
  '123': '0.000000000000000123',
  '1000000000000000000': '1',
  '1180591620717411315769': '1180.591620717411315769', // BIG: 2^70 + 12345
};

let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let gw: GatewayClient;
let receiver: WebhookReceiver;
let secret: string;
let streamId: string;
let me: Address;
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  me = client.account.address;
  demo = await deployDemo(client);
  await send(client, demo.demo, erc20, 'mint', [me, 10n * BIG]);
  receiver = await startWebhookReceiver();
  pipeline = await startPipeline({
    name: 'streams',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  await waitProjected(pipeline, chain);
  const settings = await gw.get('/settings');
  expect(settings.status).toBe(200);
  secret = settings.body.secretKey;
  await Moralis.start({ apiKey: pipeline.apiKey.key, streamsSecret: secret });
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

const webhooksOf = (block: bigint, confirmed: boolean) =>
  receiver.received.filter(
    (w) =>
      w.body?.streamId === streamId &&
      w.body.block?.number === String(block) &&
      w.body.confirmed === confirmed,
  );

const acknowledged = (block: bigint, confirmed: boolean) =>
  waitFor(
    `the ${confirmed ? 'confirmed' : 'unconfirmed'} webhook of block ${block}`,
    () => webhooksOf(block, confirmed).find((w) => w.acknowledged),
    { timeoutMs: 180_000, diagnostics: () => pipeline.diagnostics() },
  );

/** The webhook body the stream must produce for this block, built from the node's answers. */
async function expectedBody(blockNumber: bigint, confirmed: boolean) {
  const block = await chain.getBlock({ blockNumber });
  const logs = (await chain.getLogs({ blockHash: block.hash }))
    .filter((l) => l.address.toLowerCase() === demo.demo.toLowerCase() && l.topics[0] === TRANSFER_TOPIC0)
    .sort((a, b) => a.logIndex - b.logIndex);
  const token = await readToken(chain, demo.demo);
  expect(token.decimals).toBe(18);
  return {
    confirmed,
    chainId: '0x7a69',
    abi: [erc20TransferEventAbi],
    streamId,
    tag: 'e2e-transfers',
    retries: 0,
    block: { number: String(block.number), hash: block.hash, timestamp: String(block.timestamp) },
    logs: logs.map((l) => ({
      logIndex: String(l.logIndex),
      transactionHash: l.transactionHash,
      address: l.address.toLowerCase(),
      data: l.data,
      topic0: l.topics[0] ?? null,
      topic1: l.topics[1] ?? null,
      topic2: l.topics[2] ?? null,
      topic3: l.topics[3] ?? null,
    })),
    txs: [],
    txsInternal: [],
    erc20Transfers: logs.map((l) => {
      const t = decodeChainTransfer(l)!;
      return {
        transactionHash: l.transactionHash,
        logIndex: String(l.logIndex),
        contract: t.token,
        from: t.from,
        to: t.to,
        value: t.value.toString(),
        tokenName: token.name,
        tokenSymbol: token.symbol,
        tokenDecimals: String(token.decimals),
        valueWithDecimals: DEMO_AMOUNTS[t.value.toString()] ?? `no amount worked out for ${t.value}`,
        possibleSpam: false,
      };
    }),
    erc20Approvals: [],
    nftTransfers: [],
    nftApprovals: { ERC721: [], ERC1155: [] },
    nftTokenApprovals: [],
    nativeBalances: [],
  };
}

/** The signature a receiver checks: over the exact bytes, and with the official SDK. */
function expectSigned(w: ReceivedWebhook) {
  const signature = w.headers['x-signature'];
  expect(signature).toBe(keccak256(stringToBytes(w.raw + secret)));
  expect(Moralis.Streams.verifySignature({ body: w.body, signature: signature as string })).toBe(true);
}

describe('streams over the whole pipeline', () => {
  it('delivers the unconfirmed, then the confirmed webhook of a block with exactly its transfers, signed', async () => {
    const body = {
      webhookUrl: receiver.url,
      description: 'demo token transfers',
      tag: 'e2e-transfers',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    };
    const created = await gw.request('PUT', '/streams/evm', body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ ...body, status: 'active' });
    streamId = created.body.id;
    expect(streamId).toMatch(/^[0-9a-f-]{36}$/);
    expect(receiver.received.map((w) => w.raw)).toEqual([TEST_WEBHOOK_BODY]);

    const added = await gw.request('POST', `/streams/evm/${streamId}/address`, { address: demo.demo });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ streamId });

    // The first block mined once both calls have answered is evaluated against the stream: no
    // waiting for the matcher to learn of the change.
    const first = (
      await chain.getTransactionReceipt({ hash: await send(client, demo.demo, erc20, 'mint', [me, 1n]) })
    ).blockNumber;
    await acknowledged(first, false);

    // One block with several transfers of the watched token, and activity the stream must ignore.
    await client.request({ method: 'evm_setAutomine', params: [false] } as never);
    const hashes: Hash[] = [];
    try {
      hashes.push(
        await client.writeContract({
          address: demo.demo,
          abi: erc20,
          functionName: 'transfer',
          args: [alice, 10n ** 18n],
        } as never),
      );
      hashes.push(
        await client.writeContract({
          address: demo.demo,
          abi: erc20,
          functionName: 'transfer',
          args: [bob, 0n],
        } as never),
      );
      hashes.push(
        await client.writeContract({
          address: demo.demo,
          abi: erc20,
          functionName: 'transfer',
          args: [me, 5n],
        } as never),
      );
      hashes.push(
        await client.writeContract({
          address: demo.demo,
          abi: erc20,
          functionName: 'transfer',
          args: [alice, BIG],
        } as never),
      );
      hashes.push(
        await client.writeContract({
          address: demo.six,
          abi: erc20,
          functionName: 'mint',
          args: [bob, 7n],
        } as never),
      );
      hashes.push(
        await client.writeContract({
          address: demo.emitter,
          abi: eventEmitterAbi as Abi,
          functionName: 'emitAll',
          args: [alice, bob, 3n],
        } as never),
      );
      await client.request({ method: 'evm_mine' } as never);
    } finally {
      await client.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
    const receipts = await Promise.all(hashes.map((hash) => waitMined(client, hash)));
    const n = receipts[0]!.blockNumber;
    expect(receipts.every((r) => r.blockNumber === n)).toBe(true);

    const unconfirmed = await acknowledged(n, false);
    const expected = await expectedBody(n, false);
    expect(expected.erc20Transfers).toHaveLength(4);
    expect(unconfirmed.body).toEqual(expected);
    expect(unconfirmed.headers['content-type']).toBe('application/json');
    expectSigned(unconfirmed);
    expect(webhooksOf(n, true)).toEqual([]); // not yet confirmations deep

    await mine(client, 2); // CONFIRMATIONS=2
    const confirmed = await acknowledged(n, true);
    expect(confirmed.body).toEqual({ ...expected, confirmed: true });
    expectSigned(confirmed);
  });

  it('loses no webhook when the sender is killed while the receiver is slow', async () => {
    expect(streamId).toBeDefined();
    const head = await chain.getBlockNumber({ cacheTime: 0 });
    const heldRequest = receiver.holdWhen(
      (w) =>
        w.body?.streamId === streamId && w.body.confirmed === false && BigInt(w.body.block.number) > head,
    );
    const hash = await send(client, demo.demo, erc20, 'transfer', [bob, 123n]);
    const m = (await chain.getTransactionReceipt({ hash })).blockNumber;
    const held = await heldRequest;
    expect(held.body.block.number).toBe(String(m));

    // The attempt is in flight (the receiver has the request, the sender waits for its answer).
    expect((await pipeline.kill('webhook-sender')).signal).toBe('SIGKILL');
    await pipeline.start('webhook-sender');

    const delivered = await acknowledged(m, false);
    expect(delivered.headers['webhook-id']).toBe(held.headers['webhook-id']); // the same delivery
    expect(delivered.body).toEqual({ ...(await expectedBody(m, false)), retries: delivered.body.retries });
    expectSigned(delivered);

    // History shows it delivered (the sender records the attempt right after the answer).
    const entry = await waitFor('the delivery in history', async () => {
      const history = await gw.get('/history', { streamId, limit: 100 });
      return history.body.result.find(
        (h: { status: string; tinyPayload: { block: string; confirmed: boolean } }) =>
          h.tinyPayload.block === String(m) && h.tinyPayload.confirmed === false && h.status === 'delivered',
      );
    });
    expect(entry).toMatchObject({ streamId, status: 'delivered', errorMessage: '' });
  }, 240_000);
});

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
