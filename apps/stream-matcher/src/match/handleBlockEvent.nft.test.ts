import { randomUUID } from 'node:crypto';
import { createChainRegistry } from '@tributary/chains';
import {
  demoMultiTokenAbi,
  demoMultiTokenBytecode,
  demoNftAbi,
  demoNftBytecode,
  demoTokenAbi,
  demoTokenBytecode,
} from '@tributary/contracts';
import { type Pool, createPool } from '@tributary/db';
import { addStreamAddresses, insertStream } from '@tributary/db/streams';
import { readNftContractInfo } from '@tributary/evm';
import { createLogger } from '@tributary/runtime';
import { type FullBlockEvent, webhookBody } from '@tributary/schema';
import { validateStreamConfig } from '@tributary/stream-rules';
import type { StreamConfig } from '@tributary/schema';
import {
  type StartedAnvil,
  type TestDatabase,
  createTestDatabase,
  startAnvil,
  uniqueName,
} from '@tributary/testkit';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import Moralis from 'moralis';
import { EvmStreamResult } from 'moralis/common-streams-utils';
import { BatchProcessor } from 'moralis/streams';
import type { IWebhook } from 'moralis/streams-typings';
import { type Address, type Hex, createTestClient, http, publicActions, walletActions } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreamStore } from '../load/createStreamStore.ts';
import { createBlockReaders } from '../read/createBlockReaders.ts';
import { blockEventFromChain } from '../testing/blockEventFromChain.ts';
import { loadEnv } from '../env.ts';
import { createBlockHandler } from './handleBlockEvent.ts';

/** The deployment's STREAM_BLOCK_BUDGET_MS (env.ts). */
const BUDGET_MS = loadEnv({ DATABASE_URL: 'postgres://unused' }).STREAM_BLOCK_BUDGET_MS;

// Real ERC721 and ERC1155 contracts on a private anvil, one block with transfers (single and
// batch), approvals and an ERC20 transfer beside them, read back as the follower publishes it
// (NFT contract name, symbol and standard read with the follower's own reader). Each case stores
// a stream, runs the matcher's block handler and parses the stored webhook body (the bytes the
// sender POSTs) with the official SDK's parsers.

const BIG = 2n ** 70n + 9n; // an ERC1155 amount above 2^64: must arrive exactly

let anvil: StartedAnvil;
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let accountId: string;
let event: FullBlockEvent;
let client: ReturnType<typeof makeClient>;
let ALICE: Address;
let BOB: Address;
let CAROL: Address;
let DAVE: Address;
let NFT: Address;
let MULTI: Address;
let COIN: Address;
const txs: Record<'nftMove' | 'nftApprove' | 'nftAll' | 'single' | 'multiAll' | 'batch' | 'coin', Hex> =
  {} as never;

function makeClient(url: string) {
  return createTestClient({ mode: 'anvil', transport: http(url) })
    .extend(publicActions)
    .extend(walletActions);
}
const lower = (a: string) => a.toLowerCase() as Address;
const ABI = [...demoNftAbi, ...demoMultiTokenAbi, ...demoTokenAbi];

async function deploy(abi: readonly unknown[], bytecode: Hex, args: unknown[]): Promise<Address> {
  const hash = await client.deployContract({
    abi: abi as never,
    bytecode,
    args: args as never,
    account: ALICE,
    chain: null,
  });
  return lower((await client.waitForTransactionReceipt({ hash })).contractAddress!);
}
const write = (address: Address, functionName: string, args: unknown[], account: Address) =>
  client.writeContract({
    address,
    abi: ABI as never,
    functionName: functionName as never,
    args: args as never,
    account,
    chain: null,
    gas: 300_000n,
  });
const mined = async (p: Promise<Hex>) => client.waitForTransactionReceipt({ hash: await p });

beforeAll(async () => {
  anvil = await startAnvil();
  client = makeClient(anvil.rpcUrl);
  [ALICE, BOB, CAROL, DAVE] = (await client.getAddresses()).slice(0, 4).map(lower) as [
    Address,
    Address,
    Address,
    Address,
  ];
  NFT = await deploy(demoNftAbi, demoNftBytecode, ['Kitties', 'KIT']);
  MULTI = await deploy(demoMultiTokenAbi, demoMultiTokenBytecode, ['Items', 'ITM']);
  COIN = await deploy(demoTokenAbi, demoTokenBytecode, ['Coin', 'CN', 2]);
  await mined(write(NFT, 'mint', [ALICE, 7n], ALICE));
  await mined(write(NFT, 'mint', [BOB, 8n], BOB));
  for (const [id, amount] of [
    [1n, 100n],
    [2n, 200n],
    [3n, BIG],
  ] as const)
    await mined(write(MULTI, 'mint', [ALICE, id, amount], ALICE));
  await mined(write(MULTI, 'setApprovalForAll', [CAROL, true], ALICE));
  await mined(write(COIN, 'mint', [ALICE, 1_000n], ALICE));

  // One block; no transaction depends on another of the block.
  await client.setAutomine(false);
  txs.nftMove = await write(NFT, 'transferFrom', [ALICE, BOB, 7n], ALICE);
  txs.single = await write(MULTI, 'safeTransferFrom', [ALICE, BOB, 3n, BIG, '0x'], ALICE);
  txs.multiAll = await write(MULTI, 'setApprovalForAll', [DAVE, true], ALICE);
  txs.coin = await write(COIN, 'transfer', [BOB, 5n], ALICE);
  txs.nftApprove = await write(NFT, 'approve', [CAROL, 8n], BOB);
  txs.nftAll = await write(NFT, 'setApprovalForAll', [DAVE, true], BOB);
  txs.batch = await write(MULTI, 'safeBatchTransferFrom', [ALICE, BOB, [1n, 2n], [10n, 20n], '0x'], CAROL);
  await client.mine({ blocks: 1 });
  await client.setAutomine(true);
  const receipt = await client.getTransactionReceipt({ hash: txs.batch });
  for (const hash of Object.values(txs)) {
    const r = await client.getTransactionReceipt({ hash });
    expect([r.status, r.blockNumber]).toEqual(['success', receipt.blockNumber]);
  }
  event = await blockEventFromChain(client, receipt.blockNumber, {
    tokens: [{ address: COIN, name: 'Coin', symbol: 'CN', decimals: 2, totalSupply: '0', readAtBlock: 1 }],
  });
  // As the follower names NFT contracts: read from the chain at the block.
  for (const c of [NFT, MULTI]) {
    const info = await readNftContractInfo(client as never, c, receipt.blockNumber);
    event.tokenInfo.push({ ...info, decimals: null });
  }

  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 4 });
  accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'n',
    's',
  ]);
  queue = openTestWebhookQueue(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:56379', uniqueName('q'));
}, 120_000);

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await pool?.end();
  await db?.drop();
  await anvil?.stop();
});

const chains = createChainRegistry();

/** Stores the stream (validated as the gateway would), runs the block through the handler, returns the stored body. */
async function deliver(config: Partial<StreamConfig>, addresses: string[]) {
  const full = {
    webhookUrl: 'http://127.0.0.1:9/hook',
    description: 'd',
    tag: 'nft',
    chainIds: ['0x7a69'],
    ...config,
  };
  const checked = validateStreamConfig(full, chains);
  expect(checked.ok ? 'valid' : checked.details).toBe('valid');
  const id = randomUUID();
  await insertStream(pool, { id, accountId, chainIds: [31337], config: full });
  await pool.query('UPDATE streams SET created_at = to_timestamp(0) WHERE id = $1', [id]);
  await addStreamAddresses(pool, id, addresses);
  const logger = createLogger('test', 'silent');
  const store = createStreamStore({ pool, logger });
  await store.reload(id);
  const readers = createBlockReaders({ rpcUrls: new Map([[31337, anvil.rpcUrl]]), concurrency: 4 });
  await createBlockHandler({ pool, store, queue, logger, readers, budgetMs: BUDGET_MS })(event);
  const { rows } = await pool.query<{ body: string }>('SELECT body FROM deliveries WHERE stream_id = $1', [
    id,
  ]);
  expect(rows).toHaveLength(1);
  const raw = rows[0]!.body;
  expect(JSON.stringify(JSON.parse(raw))).toBe(raw);
  expect(webhookBody.safeParse(JSON.parse(raw)).error?.issues).toBeUndefined();
  return { id, raw, body: JSON.parse(raw) as IWebhook };
}

const logIndexOf = (hash: Hex) => String(event.logs.find((l) => l.transactionHash === hash)!.logIndex);
const kit = { tokenContractType: 'ERC721', tokenName: 'Kitties', tokenSymbol: 'KIT' };
const itm = { tokenContractType: 'ERC1155', tokenName: 'Items', tokenSymbol: 'ITM' };
type AbiItem = NonNullable<StreamConfig['abi']>[number];
/** An event of a contract's compiled ABI, as a stream body carries it. */
const eventOf = (abi: readonly { type: string; name?: string }[], name: string) =>
  abi.find((i) => i.type === 'event' && i.name === name) as unknown as AbiItem;
const nftEvent = (name: string) => eventOf(demoNftAbi, name);
const multiEvent = (name: string) => eventOf(demoMultiTokenAbi, name);
const NFT_TOPIC0 = [
  'Transfer(address,address,uint256)',
  'Approval(address,address,uint256)',
  'ApprovalForAll(address,address,bool)',
  'TransferSingle(address,address,address,uint256,uint256)',
  'TransferBatch(address,address,address,uint256[],uint256[])',
];
const NFT_ABI = [
  nftEvent('Transfer'),
  nftEvent('Approval'),
  nftEvent('ApprovalForAll'),
  multiEvent('TransferSingle'),
  multiEvent('TransferBatch'),
];

const ownerBalance = {
  type: 'function',
  name: 'balanceOf',
  stateMutability: 'view',
  inputs: [{ name: 'owner', type: 'address' }],
  outputs: [{ name: 'kittiesHeld', type: 'uint256' }],
};
const byLogIndex = <T extends { logIndex: string }>(list: T[]) =>
  [...list].sort((a, b) => Number(a.logIndex) - Number(b.logIndex));

beforeAll(async () => {
  await Moralis.start({ apiKey: 'nft-test-key' });
});

describe('NFT activity in webhooks', { timeout: 60_000 }, () => {
  it('fills nftTransfers with triggers, and native balances of their senders, as SDK receivers read them', async () => {
    const { body } = await deliver(
      {
        includeContractLogs: true,
        topic0: NFT_TOPIC0,
        abi: NFT_ABI,
        triggers: [{ type: 'nfttransfer', contractAddress: NFT, functionAbi: ownerBalance, inputs: ['$to'] }],
        getNativeBalances: [{ type: 'nfttransfer', selectors: ['$from', '$operator'] }],
      },
      [NFT, MULTI],
    );
    const trig = [{ name: 'kittiesHeld', value: '2' }]; // BOB held 8 and received 7 in this block
    const expected = byLogIndex([
      {
        transactionHash: txs.nftMove,
        logIndex: logIndexOf(txs.nftMove),
        contract: NFT,
        ...kit,
        operator: null,
        from: ALICE,
        to: BOB,
        tokenId: '7',
        amount: '1',
        possibleSpam: false,
        triggers: trig,
      },
      {
        transactionHash: txs.single,
        logIndex: logIndexOf(txs.single),
        contract: MULTI,
        ...itm,
        operator: ALICE,
        from: ALICE,
        to: BOB,
        tokenId: '3',
        amount: '1180591620717411303433',
        possibleSpam: false,
        triggers: trig,
      },
      ...[
        ['1', '10'],
        ['2', '20'],
      ].map(([tokenId, amount]) => ({
        transactionHash: txs.batch,
        logIndex: logIndexOf(txs.batch),
        contract: MULTI,
        ...itm,
        operator: CAROL,
        from: ALICE,
        to: BOB,
        tokenId: tokenId!,
        amount: amount!,
        possibleSpam: false,
        triggers: trig,
      })),
    ]);
    expect(body.nftTransfers).toEqual(expected);
    expect(body.erc20Transfers).toEqual([]);
    // $from and $operator of the transfers, de-duplicated, at the webhook's block.
    const at = BigInt(event.block.number);
    const balanceOf = async (address: Address) =>
      (await client.getBalance({ address, blockNumber: at })).toString();
    expect(new Set(body.nativeBalances.map((b) => JSON.stringify(b)))).toEqual(
      new Set(
        await Promise.all(
          [ALICE, CAROL].map(async (address) =>
            JSON.stringify({ address, balance: await balanceOf(address) }),
          ),
        ),
      ),
    );
    expect(body.nativeBalances).toHaveLength(2);

    // The SDK's batch processor (what SDK-based indexers run) reads every transfer, amounts exact.
    const docs = BatchProcessor.create()
      .process(body)
      .nftTransfers()
      .map((u) => u.document);
    expect(
      docs.map((d) => [
        d.contract,
        d.tokenContractType,
        d.tokenName,
        d.operator,
        d.from,
        d.to,
        d.tokenId,
        d.amount,
      ]),
    ).toEqual(
      expected.map((t) => [
        t.contract,
        t.tokenContractType,
        t.tokenName,
        t.operator,
        t.from,
        t.to,
        t.tokenId,
        t.amount,
      ]),
    );
    expect(docs.map((d) => d.triggers?.map((t) => [t.name, String(t.value)]))).toEqual(
      expected.map(() => [['kittiesHeld', '2']]),
    );
    // The SDK's webhook parser takes the whole body; its logs decode with the webhook's ABI.
    const parsed = EvmStreamResult.create(body as never);
    expect(parsed.nftTransfers.map((t) => [t.contract.lowercase, t.tokenId, t.tokenContractType])).toEqual(
      expected.map((t) => [t.contract, t.tokenId, t.tokenContractType]),
    );
    const decoded = Moralis.Streams.parsedLogs<Record<string, { toString(): string }>>(body);
    expect(decoded).toHaveLength(body.logs.length);
    const nftMoveAt = body.logs.findIndex((l) => l.transactionHash === txs.nftMove);
    expect(String(decoded[nftMoveAt]!['tokenId'])).toBe('7');
  });

  it('fills nftTokenApprovals and the deprecated nftApprovals, as the SDK parses them', async () => {
    const { body } = await deliver(
      {
        includeContractLogs: true,
        topic0: ['Approval(address,address,uint256)', 'ApprovalForAll(address,address,bool)'],
        abi: [nftEvent('Approval'), nftEvent('ApprovalForAll')],
      },
      [NFT, MULTI],
    );
    expect(body.nftTransfers).toEqual([]);
    const root = (hash: Hex, contract: Address) => ({
      transactionHash: hash,
      logIndex: logIndexOf(hash),
      contract,
    });
    expect(body.nftTokenApprovals).toEqual(
      byLogIndex([
        {
          ...root(txs.nftApprove, NFT),
          ...kit,
          account: BOB,
          operator: CAROL,
          approvedAll: false,
          tokenId: '8',
        },
        { ...root(txs.nftAll, NFT), ...kit, account: BOB, operator: DAVE, approvedAll: true, tokenId: null },
        {
          ...root(txs.multiAll, MULTI),
          ...itm,
          account: ALICE,
          operator: DAVE,
          approvedAll: true,
          tokenId: null,
        },
      ]),
    );
    expect(body.nftApprovals).toEqual({
      ERC721: [{ ...root(txs.nftApprove, NFT), ...kit, owner: BOB, approved: CAROL, tokenId: '8' }],
      ERC1155: [{ ...root(txs.multiAll, MULTI), ...itm, account: ALICE, operator: DAVE, approved: true }],
    });

    const parsed = EvmStreamResult.create(body as never);
    expect(
      parsed.nftApprovals.ERC721.map((a) => [a.owner.lowercase, a.approved.lowercase, a.tokenId]),
    ).toEqual([[BOB, CAROL, '8']]);
    expect(
      parsed.nftApprovals.ERC1155.map((a) => [a.account.lowercase, a.operator.lowercase, a.approved]),
    ).toEqual([[ALICE, DAVE, true]]);
    const docs = BatchProcessor.create()
      .process(body)
      .nftApprovals()
      .map((u) => u.document);
    expect(
      docs.map((d) => [d.contract, d.account, d.operator, d.approvedAll, d.tokenId, d.tokenContractType]),
    ).toEqual(
      body.nftTokenApprovals.map((a) => [
        a.contract,
        a.account,
        a.operator,
        a.approvedAll,
        a.tokenId,
        a.tokenContractType,
      ]),
    );
  });

  it('keeps the ERC721 Transfer out of erc20Transfers and the ERC20 one out of nftTransfers under an ERC20 ABI', async () => {
    const { body } = await deliver(
      {
        includeContractLogs: true,
        topic0: ['Transfer(address,address,uint256)'],
        abi: [eventOf(demoTokenAbi, 'Transfer')],
      },
      [NFT, COIN],
    );
    expect(body.erc20Transfers.map((t) => [t.transactionHash, t.contract, t.from, t.to, t.value])).toEqual([
      [txs.coin, COIN, ALICE, BOB, '5'],
    ]);
    expect(body.nftTransfers.map((t) => [t.transactionHash, t.contract, t.tokenId, t.amount])).toEqual([
      [txs.nftMove, NFT, '7', '1'],
    ]);
    // The ERC721 log does not fit the ERC20 ABI: left out of logs, so the SDK decodes every log it gets.
    expect(body.logs.map((l) => l.transactionHash)).toEqual([txs.coin]);
    const decoded = Moralis.Streams.parsedLogs<{ from: string; to: string; value: { toString(): string } }>(
      body,
    );
    expect(decoded.map((d) => [d.from.toLowerCase(), d.to.toLowerCase(), d.value.toString()])).toEqual([
      [ALICE, BOB, '5'],
    ]);
  });
});
