import {
  ephemeralEmitterAbi,
  oddMetadataTokenAbi,
  oddMetadataTokenBytecode,
  rebasingTokenAbi,
  rebasingTokenBytecode,
  subcallRevertTokenAbi,
  subcallRevertTokenBytecode,
  topicShapesAbi,
  topicShapesBytecode,
} from '@tributary/contracts';
import { type DevnetClient, createDevnetClient, deploy } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { startAnvil } from '@tributary/testkit';
import {
  type Abi,
  type Address,
  type Hash,
  type Log,
  type PublicClient,
  keccak256,
  stringToBytes,
} from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertTablesMatchChain } from './harness/assertTablesMatchChain.ts';
import {
  TRANSFER_TOPIC0,
  contractLogs,
  decodeChainTransfer,
  expectedLogRecord,
  readChain,
} from './harness/chainTruth.ts';
import { type GatewayClient, createGatewayClient, transferRecords } from './harness/createGatewayClient.ts';
import { waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { alice, bob, mine, send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// Chain shapes that mainnet contracts produce, through one pipeline (follower, projector, matcher,
// sender, gateway): an anonymous event with four topics and raw LOG0..LOG4, a contract created and
// self-destructed in one transaction, transfers inside reverted sub-calls, a token whose metadata
// getters answer with the wrong types. Tables, the data interface and webhooks are compared with
// what the node says, and the expected shapes are also stated by hand.
const CHAIN = '0x7a69';
const word = (s: string) => keccak256(stringToBytes(s));
const pad = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}`.toLowerCase();
const bornAbi = {
  anonymous: false,
  inputs: [{ indexed: false, name: 'child', type: 'address' }],
  name: 'Born',
  type: 'event',
};

let pipeline: Pipeline;
let receiver: WebhookReceiver;
let client: DevnetClient;
let chain: PublicClient;
let gw: GatewayClient;
let me: Address;
let shapes: Address;
let subcall: Address;
let odd: Address;
let rebasing: Address;
let streamId: string;
let stopAnvil: () => Promise<void> = async () => {};
/** Blocks of the transactions sent to the watched contracts (shapes, subcall) after the stream went live. */
const watchedBlocks: bigint[] = [];
const tx: Record<string, Hash> = {};
let destroyedChild: Address;
let keptChild: Address;

async function blockOf(hash: Hash): Promise<bigint> {
  return (await chain.getTransactionReceipt({ hash })).blockNumber;
}

/** The child address that TopicShapes announces in its Born(address) log. */
async function bornChild(hash: Hash): Promise<Address> {
  const receipt = await chain.getTransactionReceipt({ hash });
  const born = receipt.logs.find((l) => l.address.toLowerCase() === shapes.toLowerCase());
  return `0x${born!.data.slice(26)}`.toLowerCase() as Address;
}

const webhooksOf = (block: bigint) =>
  receiver.received.filter(
    (w) => w.body?.streamId === streamId && w.body.block?.number === String(block) && !w.body.confirmed,
  );

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  me = client.account.address.toLowerCase() as Address;
  shapes = (await deploy(client, topicShapesAbi, topicShapesBytecode, [])).toLowerCase() as Address;
  subcall = (
    await deploy(client, subcallRevertTokenAbi, subcallRevertTokenBytecode, [])
  ).toLowerCase() as Address;
  odd = (await deploy(client, oddMetadataTokenAbi, oddMetadataTokenBytecode, [])).toLowerCase() as Address;
  rebasing = (await deploy(client, rebasingTokenAbi, rebasingTokenBytecode, [])).toLowerCase() as Address;
  receiver = await startWebhookReceiver();
  pipeline = await startPipeline({
    name: 'shapes',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
    env: { projector: { SUPPLY_CHECK_INTERVAL_MS: '300' } },
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);

  // Every transaction to a watched contract, with all of its logs (anonymous ones included).
  const created = await gw.request('PUT', '/streams/evm', {
    webhookUrl: receiver.url,
    description: 'chain shapes',
    tag: 'shapes',
    chainIds: [CHAIN],
    includeContractLogs: true,
    includeNativeTxs: true,
    includeAllTxLogs: true,
    topic0: ['Born(address)', 'Transfer(address,address,uint256)'],
    abi: [bornAbi, erc20TransferEventAbi],
  });
  expect(created.status).toBe(200);
  streamId = created.body.id;
  const added = await gw.request('POST', `/streams/evm/${streamId}/address`, { address: [shapes, subcall] });
  expect(added.status).toBe(200);
  // The first block mined once both calls have answered is evaluated against the stream.
  const first = await blockOf(await send(client, subcall, subcallRevertTokenAbi as Abi, 'mint', [me, 1000n]));
  await waitFor("the first block's webhook", () => webhooksOf(first).length > 0, {
    timeoutMs: 90_000,
    diagnostics: () => pipeline.diagnostics(),
  });

  const onShapes = async (name: string, fn: string, args: readonly unknown[]) => {
    tx[name] = await send(client, shapes, topicShapesAbi as Abi, fn, args);
    watchedBlocks.push(await blockOf(tx[name]!));
  };
  await onShapes('fourIndexed', 'emitFourIndexed', [alice, bob, 7n, word('d'), 99n]);
  await onShapes('raw', 'emitRaw', [word('t0'), word('t1'), word('t2'), word('t3'), 5n]);
  await onShapes('createAndDestroy', 'createAndDestroy', [11n]);
  destroyedChild = await bornChild(tx['createAndDestroy']!);
  await onShapes('createKept', 'createKept', [12n]);
  keptChild = await bornChild(tx['createKept']!);
  tx['destroyLater'] = await send(client, keptChild, ephemeralEmitterAbi as Abi, 'destroy', [13n]);
  tx['subcalls'] = await send(client, subcall, subcallRevertTokenAbi as Abi, 'transferWithRevertedSubcalls', [
    alice,
    10n,
    77n,
  ]);
  watchedBlocks.push(await blockOf(tx['subcalls']));
  await send(client, odd, oddMetadataTokenAbi as Abi, 'mint', [me, 500n]);
  await send(client, odd, oddMetadataTokenAbi as Abi, 'transfer', [alice, 200n]);
  await send(client, rebasing, rebasingTokenAbi as Abi, 'mint', [me, 1000n]);
  await send(client, rebasing, rebasingTokenAbi as Abi, 'transfer', [alice, 400n]);
  await mine(client, 3);
  await waitProjected(pipeline, chain);
}, 240_000);

/** The supply check's last verdict on each token, once every token has been checked at `head`. */
async function supplyVerdicts(head: bigint) {
  return waitFor(
    `a supply check of every token at block ${head}`,
    async () => {
      const { rows } = await pipeline.pool.query<{
        address: Buffer;
        block: string | null;
        mismatch: boolean;
      }>(
        'SELECT address, supply_checked_block AS block, supply_mismatch AS mismatch FROM tokens WHERE chain_id = 31337',
      );
      if (rows.some((r) => r.block !== String(head))) return false;
      return Object.fromEntries(rows.map((r) => [`0x${r.address.toString('hex')}`, r.mismatch]));
    },
    { timeoutMs: 60_000, diagnostics: () => pipeline.diagnostics() },
  );
}

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

describe('chain shapes over the whole pipeline', () => {
  it('the chain has the shapes the test means: 0 to 4 topics, a vanished child, no logs from reverted sub-calls', async () => {
    const logsOf = async (name: string) => (await chain.getTransactionReceipt({ hash: tx[name]! })).logs;
    const four = await logsOf('fourIndexed');
    expect(four.map((l) => l.topics)).toEqual([
      [pad(alice), pad(bob), `0x${7n.toString(16).padStart(64, '0')}`, word('d')],
    ]);
    expect((await logsOf('raw')).map((l) => l.topics.length)).toEqual([0, 1, 2, 3, 4]);
    // Created and self-destructed in one transaction: its logs stay, its code is gone (EIP-6780).
    expect((await logsOf('createAndDestroy')).map((l) => l.address.toLowerCase())).toEqual([
      destroyedChild,
      destroyedChild,
      shapes,
    ]);
    expect(await chain.getCode({ address: destroyedChild })).toBeUndefined();
    // Self-destructed in a later transaction: since Cancun the code stays.
    expect(await chain.getCode({ address: keptChild })).not.toBeUndefined();
    // Two transfers of 10; the two sub-calls that moved 77 reverted and left no log.
    const subcalls = await logsOf('subcalls');
    expect(subcalls.map((l) => [l.topics[0], BigInt(l.data)])).toEqual([
      [TRANSFER_TOPIC0, 10n],
      [TRANSFER_TOPIC0, 10n],
    ]);
  });

  it('the tables hold every block, log, transfer, balance and token exactly as the chain has them', async () => {
    await assertTablesMatchChain(pipeline.pool, chain);
  });

  it('/logs returns every log with a topic0 of each shape, destroyed contracts included', async () => {
    const snapshot = await readChain(chain);
    const seen: number[] = [];
    for (const address of [shapes, destroyedChild, keptChild]) {
      const mineLogs = snapshot.logs.filter((l) => l.address.toLowerCase() === address);
      expect(mineLogs.length).toBeGreaterThan(0);
      for (const topic0 of new Set(mineLogs.flatMap((l) => (l.topics[0] ? [l.topics[0]] : [])))) {
        const pages = await gw.getAllPages(`/api/v2.2/${address}/logs`, {
          chain: CHAIN,
          topic0,
          from_block: 0,
        });
        const expected = contractLogs(snapshot, address, topic0);
        for (const l of expected) seen.push(l.topics.length);
        expect(pages.flatMap((p) => p.body.result)).toEqual(
          expected.map((l) => expectedLogRecord(l, snapshot.blocks.get(l.blockNumber!)!)),
        );
      }
    }
    expect([...new Set(seen)].sort()).toEqual([1, 2, 3, 4]);
    // The anonymous four-topic log is found by its first indexed argument, all four topics shown.
    const byAlice = await gw.get(`/api/v2.2/${shapes}/logs`, {
      chain: CHAIN,
      topic0: pad(alice),
      from_block: 0,
    });
    expect(
      byAlice.body.result.map((r: Record<string, string>) => [
        r['topic0'],
        r['topic1'],
        r['topic2'],
        r['topic3'],
      ]),
    ).toEqual([[pad(alice), pad(bob), `0x${7n.toString(16).padStart(64, '0')}`, word('d')]]);
    // The vanished child's two constructor logs.
    const hello = await gw.get(`/api/v2.2/${destroyedChild}/logs`, {
      chain: CHAIN,
      topic0: word('Hello(address,uint256)'),
      from_block: 0,
    });
    expect(hello.body.result.map((r: Record<string, string>) => [r['topic1'], r['data']])).toEqual([
      [pad(shapes), `0x${11n.toString(16).padStart(64, '0')}`],
    ]);
  });

  it('/erc20/transfers leaves out the transfers of reverted sub-calls and gives null for odd-typed metadata', async () => {
    const pages = await gw.getAllPages(`/api/v2.2/${alice}/erc20/transfers`, { chain: CHAIN, order: 'ASC' });
    const records = pages.flatMap(transferRecords);
    const pick = (r: Record<string, unknown>) => [
      r['address'],
      r['from_address'],
      r['value'],
      r['token_name'],
      r['token_symbol'],
      r['token_decimals'],
      r['value_decimal'],
    ];
    expect(records.map(pick)).toEqual([
      [subcall, me, '10', 'Subcall Revert', 'SRT', '18', '0.00000000000000001'],
      [subcall, me, '10', 'Subcall Revert', 'SRT', '18', '0.00000000000000001'],
      // name() answers a uint256 and decimals() 300: neither is usable, both are null.
      [odd, me, '200', null, 'ODD', null, null],
      [rebasing, me, '400', 'Rebasing', 'REB', '18', '0.0000000000000004'],
    ]);
  });

  it('/erc20/{token}/owners of a token with odd-typed metadata: raw balances, no formatted ones', async () => {
    const res = await gw.get(`/api/v2.2/erc20/${odd}/owners`, { chain: CHAIN });
    expect(res.status).toBe(200);
    expect(res.body.total_supply).toBe('500');
    expect(
      res.body.result.map((r: Record<string, unknown>) => [
        r['owner_address'],
        r['balance'],
        r['balance_formatted'],
        r['percentage_relative_to_total_supply'],
      ]),
    ).toEqual([
      [me, '300', null, 60],
      [alice, '200', null, 40],
    ]);
  });

  it('webhooks carry every log of each watched transaction, anonymous ones included, and no reverted transfer', async () => {
    for (const block of watchedBlocks) {
      const webhook = await waitFor(`the webhook of block ${block}`, () => webhooksOf(block)[0], {
        timeoutMs: 120_000,
        diagnostics: () => pipeline.diagnostics(),
      });
      const txs = (
        await chain.getBlock({ blockNumber: block, includeTransactions: true })
      ).transactions.filter(
        (t) => t.to !== null && [shapes, subcall].includes(t.to.toLowerCase() as Address),
      );
      const hashes = new Set(txs.map((t) => t.hash));
      const logs: Log[] = (await chain.getLogs({ fromBlock: block, toBlock: block }))
        .filter((l) => hashes.has(l.transactionHash!))
        .sort((a, b) => a.logIndex! - b.logIndex!);
      expect(webhook.body.txs.map((t: { hash: string }) => t.hash)).toEqual(txs.map((t) => t.hash));
      expect(webhook.body.logs).toEqual(
        logs.map((l) => ({
          logIndex: String(l.logIndex),
          transactionHash: l.transactionHash,
          address: l.address.toLowerCase(),
          data: l.data,
          topic0: l.topics[0] ?? null,
          topic1: l.topics[1] ?? null,
          topic2: l.topics[2] ?? null,
          topic3: l.topics[3] ?? null,
        })),
      );
      expect(webhook.body.erc20Transfers).toEqual(
        logs.flatMap((l) => {
          const t = decodeChainTransfer(l);
          if (!t) return [];
          return [
            {
              transactionHash: l.transactionHash,
              logIndex: String(l.logIndex),
              contract: t.token,
              from: t.from,
              to: t.to,
              value: t.value.toString(),
              tokenName: 'Subcall Revert',
              tokenSymbol: 'SRT',
              tokenDecimals: '18',
              // The watched transfers are the two of 10 (18 decimals), worked out by hand.
              valueWithDecimals:
                t.value === 10n ? '0.00000000000000001' : `no amount worked out for ${t.value}`,
              possibleSpam: false,
            },
          ];
        }),
      );
    }
    // Stated by hand: the raw block's five logs, the vanished child's logs, two transfers of 10.
    const raw = webhooksOf(await blockOf(tx['raw']!))[0]!;
    expect(raw.body.logs.map((l: Record<string, string | null>) => [l['topic0'], l['topic3']])).toEqual([
      [null, null],
      [word('t0'), null],
      [word('t0'), null],
      [word('t0'), null],
      [word('t0'), word('t3')],
    ]);
    const born = webhooksOf(await blockOf(tx['createAndDestroy']!))[0]!;
    expect(born.body.logs.map((l: { address: string }) => l.address)).toEqual([
      destroyedChild,
      destroyedChild,
      shapes,
    ]);
    const moved = webhooksOf(await blockOf(tx['subcalls']!))[0]!;
    expect(moved.body.erc20Transfers.map((t: { value: string }) => t.value)).toEqual(['10', '10']);
  });

  it('flags a rebasing token whose supply moved without an event, and only it', async () => {
    const before = await chain.getBlockNumber({ cacheTime: 0 });
    expect(await supplyVerdicts(before)).toEqual({ [subcall]: false, [odd]: false, [rebasing]: false });
    const owners = async () => (await gw.get(`/api/v2.2/erc20/${rebasing}/owners`, { chain: CHAIN })).body;
    expect((await owners()).supply_mismatch).toBeUndefined();

    // Every balance triples and no Transfer says so.
    await send(client, rebasing, rebasingTokenAbi as Abi, 'rebase', [3n]);
    await mine(client, 1);
    await waitProjected(pipeline, chain);
    const head = await chain.getBlockNumber({ cacheTime: 0 });
    expect(await supplyVerdicts(head)).toEqual({ [subcall]: false, [odd]: false, [rebasing]: true });
    const body = await owners();
    // The balances are what the events add up to (the chain says 1800 and 1200): flagged, not hidden.
    expect(body.total_supply).toBe('1000');
    expect(body.supply_mismatch).toEqual({ block_number: String(head), total_supply_on_chain: '3000' });
    expect(body.result.map((r: Record<string, unknown>) => [r['owner_address'], r['balance']])).toEqual([
      [me, '600'],
      [alice, '400'],
    ]);
    const { rows } = await pipeline.pool.query<{ supply: string }>(
      'SELECT chain_total_supply::text AS supply FROM tokens WHERE chain_id = 31337 AND address = $1',
      [Buffer.from(rebasing.slice(2), 'hex')],
    );
    expect(rows).toEqual([{ supply: '3000' }]);
  });
});

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
