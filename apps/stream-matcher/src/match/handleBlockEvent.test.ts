import { randomUUID } from 'node:crypto';
import { createChainRegistry } from '@tributary/chains';
import { demoTokenAbi, demoTokenBytecode, eventEmitterAbi, eventEmitterBytecode } from '@tributary/contracts';
import { type Pool, createPool } from '@tributary/db';
import { addStreamAddresses, insertStream } from '@tributary/db/streams';
import { createLogger } from '@tributary/runtime';
import { type ChainLog, type ChainTransaction, type FullBlockEvent, webhookBody } from '@tributary/schema';
import { TRANSFER_TOPIC, validateStreamConfig } from '@tributary/stream-rules';
import type { StreamConfig } from '@tributary/schema';
import {
  createTestDatabase,
  startAnvil,
  startFaultyRpc,
  type StartedAnvil,
  type TestDatabase,
  uniqueName,
} from '@tributary/testkit';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import {
  type Address,
  type Hex,
  encodeAbiParameters,
  http,
  createTestClient,
  publicActions,
  walletActions,
  toEventSelector,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreamStore } from '../load/createStreamStore.ts';
import { type BlockReaders, createBlockReaders } from '../read/createBlockReaders.ts';
import { blockEventFromChain } from '../testing/blockEventFromChain.ts';
import { loadEnv } from '../env.ts';
import { createBlockHandler } from './handleBlockEvent.ts';

/** The deployment's STREAM_BLOCK_BUDGET_MS (env.ts). */
const BUDGET_MS = loadEnv({ DATABASE_URL: 'postgres://unused' }).STREAM_BLOCK_BUDGET_MS;

/** The matcher's block handler over this file's database and queue, with the deployment's budget. */
function handlerOf(
  store: ReturnType<typeof createStreamStore>,
  logger: ReturnType<typeof createLogger>,
  more: Partial<Parameters<typeof createBlockHandler>[0]> = {},
) {
  return createBlockHandler({ pool, store, queue, logger, readers: readers(), budgetMs: BUDGET_MS, ...more });
}

// Real chain data: contracts deployed on a private anvil, one block mined with a mix of activity,
// read back as the follower would publish it; each case stores a stream and runs the handler
// against a fresh database, then reads the stored webhook body.

/** Runtime: CALL(gas, calldata word 0 as address, callvalue): forwards the value to that address. */
const FORWARDER_BYTECODE: Hex = '0x600f600c600039600f6000f36000600060006000346000355af100';

const transferEvent = demoTokenAbi.find((i) => i.type === 'event' && i.name === 'Transfer')!;
const balanceOf = (outputName: string) => ({
  type: 'function',
  name: 'balanceOf',
  stateMutability: 'view',
  inputs: [{ name: 'owner', type: 'address' }],
  outputs: [{ name: outputName, type: 'uint256' }],
});

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
let TKA: Address;
let SPAM: Address;
let EMIT: Address;
let FWD: Address;
const txs: Record<'native' | 'tka' | 'spam' | 'other' | 'emit' | 'forward', Hex> = {} as never;
const readers = () => createBlockReaders({ rpcUrls: new Map([[31337, anvil.rpcUrl]]), concurrency: 4 });

function makeClient(url: string) {
  return createTestClient({ mode: 'anvil', transport: http(url) })
    .extend(publicActions)
    .extend(walletActions);
}

const lower = (a: string) => a.toLowerCase() as Address;

async function deploy(abi: readonly unknown[], bytecode: Hex, args: unknown[] = []): Promise<Address> {
  const hash = await client.deployContract({
    abi: abi as never,
    bytecode,
    args: args as never,
    account: ALICE,
    chain: null,
  });
  const r = await client.waitForTransactionReceipt({ hash });
  return lower(r.contractAddress!);
}

beforeAll(async () => {
  anvil = await startAnvil();
  client = makeClient(anvil.rpcUrl);
  [ALICE, BOB, CAROL, DAVE] = (await client.getAddresses()).slice(0, 4).map(lower) as [
    Address,
    Address,
    Address,
    Address,
  ];
  TKA = await deploy(demoTokenAbi, demoTokenBytecode, ['Alpha', 'ALP', 6]);
  SPAM = await deploy(demoTokenAbi, demoTokenBytecode, ['Free Money', 'FREE', 18]);
  EMIT = await deploy(eventEmitterAbi, eventEmitterBytecode);
  FWD = await deploy([], FORWARDER_BYTECODE);
  for (const token of [TKA, SPAM]) {
    const hash = await client.writeContract({
      address: token,
      abi: demoTokenAbi,
      functionName: 'mint',
      args: [ALICE, 1_000_000n],
      account: ALICE,
      chain: null,
    });
    await client.waitForTransactionReceipt({ hash });
  }

  // One block with everything in it.
  await client.setAutomine(false);
  txs.native = await client.sendTransaction({ account: ALICE, to: BOB, value: 10n ** 18n, chain: null });
  const write = (address: Address, functionName: string, args: unknown[], account: Address) =>
    client.writeContract({
      address,
      abi: [...demoTokenAbi, ...eventEmitterAbi] as never,
      functionName: functionName as never,
      args: args as never,
      account,
      chain: null,
      gas: 200_000n,
    });
  txs.tka = await write(TKA, 'transfer', [BOB, 250_000n], ALICE);
  txs.spam = await write(SPAM, 'transfer', [BOB, 5n], ALICE);
  txs.other = await client.sendTransaction({ account: CAROL, to: DAVE, value: 2n * 10n ** 18n, chain: null });
  txs.emit = await write(EMIT, 'emitAll', [CAROL, DAVE, 7n], DAVE);
  txs.forward = await client.sendTransaction({
    account: DAVE,
    to: FWD,
    value: 3n * 10n ** 18n,
    data: encodeAbiParameters([{ type: 'address' }], [CAROL]),
    gas: 100_000n,
    chain: null,
  });
  await client.mine({ blocks: 1 });
  await client.setAutomine(true);
  const receipt = await client.getTransactionReceipt({ hash: txs.forward });
  event = await blockEventFromChain(client, receipt.blockNumber, {
    tokens: [
      { address: TKA, name: 'Alpha', symbol: 'ALP', decimals: 6, totalSupply: '0', readAtBlock: 1 },
      { address: SPAM, name: 'Free Money', symbol: 'FREE', decimals: 18, totalSupply: '0', readAtBlock: 1 },
    ],
  });
  expect(event.transactions).toHaveLength(6);

  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 4 });
  accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'm',
    's',
  ]);
  // The operator flagged SPAM (gateway data and stream filters read the same flag).
  await pool.query(
    `INSERT INTO tokens (chain_id, address, name, symbol, decimals, read_at_block, possible_spam)
     VALUES (31337, decode($1, 'hex'), 'Free Money', 'FREE', 18, 1, true)`,
    [SPAM.slice(2)],
  );
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
async function deliver(
  config: Partial<StreamConfig>,
  addresses: string[],
  opts: { block?: FullBlockEvent; readers?: BlockReaders; onCompletion?: (outcome: string) => void } = {},
) {
  const full = {
    webhookUrl: 'http://127.0.0.1:9/hook',
    description: 'd',
    tag: 'tag',
    chainIds: ['0x7a69'],
    ...config,
  };
  const checked = validateStreamConfig(full, chains);
  expect(checked.ok ? 'valid' : checked.details).toBe('valid');
  const id = randomUUID();
  await insertStream(pool, { id, accountId, chainIds: [31337], config: full });
  await pool.query(`UPDATE streams SET created_at = to_timestamp(0) WHERE id = $1`, [id]);
  await addStreamAddresses(pool, id, addresses);
  const logger = createLogger('test', 'silent');
  const store = createStreamStore({ pool, logger });
  await store.reload(id);
  const handle = handlerOf(store, logger, {
    readers: opts.readers ?? readers(),
    ...(opts.onCompletion ? { onCompletion: opts.onCompletion } : {}),
  });
  const enqueued = await handle(opts.block ?? event);
  const { rows } = await pool.query<{ body: string }>('SELECT body FROM deliveries WHERE stream_id = $1', [
    id,
  ]);
  expect(rows.length).toBe(enqueued);
  if (!rows[0]) return { id, body: undefined };
  expect(JSON.stringify(JSON.parse(rows[0].body))).toBe(rows[0].body);
  expect(webhookBody.safeParse(JSON.parse(rows[0].body)).error?.issues).toBeUndefined();
  return { id, body: JSON.parse(rows[0].body) as Record<string, unknown> };
}

const txOf = (hash: Hex) => event.transactions.find((t) => t.hash === hash)!;
const logsOf = (hash: Hex) => event.logs.filter((l) => l.transactionHash === hash);

function wireTx(tx: ChainTransaction) {
  return {
    hash: tx.hash,
    gas: tx.gas,
    gasPrice: tx.gasPrice,
    nonce: String(tx.nonce),
    input: tx.input,
    transactionIndex: String(tx.transactionIndex),
    fromAddress: tx.from,
    toAddress: tx.to,
    value: tx.value,
    type: String(tx.type),
    v: tx.v,
    r: tx.r,
    s: tx.s,
    receiptCumulativeGasUsed: tx.receipt.cumulativeGasUsed,
    receiptGasUsed: tx.receipt.gasUsed,
    receiptContractAddress: tx.receipt.contractAddress,
    receiptRoot: tx.receipt.root,
    receiptStatus: String(tx.receipt.status),
  };
}

function wireLog(l: ChainLog) {
  return {
    logIndex: String(l.logIndex),
    transactionHash: l.transactionHash,
    address: l.address,
    data: l.data,
    topic0: l.topics[0] ?? null,
    topic1: l.topics[1] ?? null,
    topic2: l.topics[2] ?? null,
    topic3: l.topics[3] ?? null,
  };
}

function transfer(hash: Hex, token: 'tka' | 'spam', from: string, to: string, value: string) {
  const l = logsOf(hash)[0]!;
  return {
    transactionHash: hash,
    logIndex: String(l.logIndex),
    contract: token === 'tka' ? TKA : SPAM,
    from,
    to,
    value,
    tokenName: token === 'tka' ? 'Alpha' : 'Free Money',
    tokenSymbol: token === 'tka' ? 'ALP' : 'FREE',
    tokenDecimals: token === 'tka' ? '6' : '18',
    valueWithDecimals: token === 'tka' ? '0.25' : '0.000000000000000005',
    possibleSpam: token === 'spam',
  };
}

function body(id: string, config: Partial<StreamConfig>, parts: Record<string, unknown>) {
  return {
    confirmed: false,
    chainId: '0x7a69',
    abi: config.abi ?? [],
    streamId: id,
    tag: 'tag',
    retries: 0,
    block: {
      number: String(event.block.number),
      hash: event.block.hash,
      timestamp: String(event.block.timestamp),
    },
    logs: [],
    txs: [],
    txsInternal: [],
    erc20Transfers: [],
    erc20Approvals: [],
    nftTransfers: [],
    nftApprovals: { ERC721: [], ERC1155: [] },
    nftTokenApprovals: [],
    nativeBalances: [],
    ...parts,
  };
}

const transferConfig = {
  includeContractLogs: true,
  topic0: ['Transfer(address,address,uint256)'],
  abi: [transferEvent],
} as unknown as Partial<StreamConfig>;

describe('block handler on real chain data', () => {
  it('includeNativeTxs: the transactions from or to a watched address, nothing else', async () => {
    const config = { includeNativeTxs: true } as Partial<StreamConfig>;
    const { id, body: got } = await deliver(config, [BOB]);
    expect(got).toEqual(body(id, config, { txs: [wireTx(txOf(txs.native))] }));
    expect((await deliver(config, ['0x00000000000000000000000000000000000000aa'])).body).toBeUndefined();
  });

  it('includeInternalTxs: internal transactions to a watched address, without the outer tx', async () => {
    const config = { includeInternalTxs: true } as Partial<StreamConfig>;
    const { id, body: got } = await deliver(config, [CAROL]);
    const inner = event.internalTransactions.find((t) => t.transactionHash === txs.forward)!;
    expect(got).toEqual(
      body(id, config, {
        txsInternal: [
          {
            from: FWD,
            to: CAROL,
            value: '3000000000000000000',
            transactionHash: txs.forward,
            gas: inner.gas,
          },
        ],
      }),
    );
    // ALICE sent only top-level transactions: no internal ones, no webhook.
    expect((await deliver(config, [ALICE])).body).toBeUndefined();
  });

  it('includeAllTxLogs: every log of a transaction with one matching log', async () => {
    const oneIndexed = {
      includeContractLogs: true,
      topic0: ['OneIndexed(address,uint256)'],
      abi: eventEmitterAbi as unknown as StreamConfig['abi'],
    } as Partial<StreamConfig>;
    const only = await deliver(oneIndexed, [CAROL]);
    const emitted = logsOf(txs.emit);
    const oneTopic = toEventSelector('OneIndexed(address,uint256)');
    expect(only.body).toEqual(
      body(only.id, oneIndexed, { logs: emitted.filter((l) => l.topics[0] === oneTopic).map(wireLog) }),
    );
    const allConfig = { ...oneIndexed, includeAllTxLogs: true };
    const all = await deliver(allConfig, [CAROL]);
    expect(emitted).toHaveLength(5);
    expect(all.body).toEqual(body(all.id, allConfig, { logs: emitted.map(wireLog) }));
  });

  it('allAddresses: every log with the topic0, whatever the address', async () => {
    const config = { ...transferConfig, allAddresses: true };
    const { id, body: got } = await deliver(config, []);
    expect(got).toEqual(
      body(id, config, {
        logs: [...logsOf(txs.tka), ...logsOf(txs.spam)].map(wireLog),
        erc20Transfers: [
          transfer(txs.tka, 'tka', ALICE, BOB, '250000'),
          transfer(txs.spam, 'spam', ALICE, BOB, '5'),
        ],
      }),
    );
  });

  it('filterPossibleSpamAddresses: transfers of flagged tokens are left out', async () => {
    const plain = await deliver(transferConfig, [BOB]);
    expect(plain.body).toEqual(
      body(plain.id, transferConfig, {
        logs: [...logsOf(txs.tka), ...logsOf(txs.spam)].map(wireLog),
        erc20Transfers: [
          transfer(txs.tka, 'tka', ALICE, BOB, '250000'),
          transfer(txs.spam, 'spam', ALICE, BOB, '5'),
        ],
      }),
    );
    const config = { ...transferConfig, filterPossibleSpamAddresses: true };
    const filtered = await deliver(config, [BOB]);
    expect(filtered.body).toEqual(
      body(filtered.id, config, {
        logs: logsOf(txs.tka).map(wireLog),
        erc20Transfers: [transfer(txs.tka, 'tka', ALICE, BOB, '250000')],
      }),
    );
  });

  it('advancedOptions includeNativeTxs: the transaction of each matched log', async () => {
    const config = {
      ...transferConfig,
      advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', includeNativeTxs: true }],
    };
    const { id, body: got } = await deliver(config, [TKA]);
    expect(got).toEqual(
      body(id, config, {
        logs: logsOf(txs.tka).map(wireLog),
        txs: [wireTx(txOf(txs.tka))],
        erc20Transfers: [transfer(txs.tka, 'tka', ALICE, BOB, '250000')],
      }),
    );
  });

  it('triggers: contract reads at the block on each item, in trigger order, errors in place', async () => {
    const config = {
      ...transferConfig,
      triggers: [
        {
          type: 'erc20transfer',
          contractAddress: '$contract',
          functionAbi: balanceOf('toBalance'),
          inputs: ['$to'],
        },
        {
          type: 'erc20transfer',
          contractAddress: '$contract',
          functionAbi: balanceOf(''),
          inputs: ['$from'],
        },
        {
          type: 'erc20transfer',
          contractAddress: EMIT,
          functionAbi: {
            type: 'function',
            name: 'decimals',
            stateMutability: 'view',
            inputs: [],
            outputs: [{ name: 'd', type: 'uint8' }],
          },
        },
        {
          type: 'log',
          topic0: 'Transfer(address,address,uint256)',
          contractAddress: '$contract',
          functionAbi: {
            type: 'function',
            name: 'symbol',
            stateMutability: 'view',
            inputs: [],
            outputs: [{ name: 'symbol', type: 'string' }],
          },
        },
        {
          type: 'log',
          contractAddress: '$address',
          functionAbi: balanceOf('fromBalance'),
          inputs: ['$from'],
        },
      ],
    } as Partial<StreamConfig>;
    const { id, body: got } = await deliver(config, [BOB]);
    const revert = { name: 'error', value: 'Execution reverted for an unknown reason.' };
    const [tkaLog, spamLog] = [logsOf(txs.tka)[0]!, logsOf(txs.spam)[0]!];
    expect(got).toEqual(
      body(id, config, {
        logs: [
          {
            ...wireLog(tkaLog),
            triggers: [
              { name: 'symbol', value: 'ALP' },
              { name: 'fromBalance', value: '750000' },
            ],
          },
          {
            ...wireLog(spamLog),
            triggers: [
              { name: 'symbol', value: 'FREE' },
              { name: 'fromBalance', value: '999995' },
            ],
          },
        ],
        erc20Transfers: [
          {
            ...transfer(txs.tka, 'tka', ALICE, BOB, '250000'),
            triggers: [{ name: 'toBalance', value: '250000' }, { name: 'output1', value: '750000' }, revert],
          },
          {
            ...transfer(txs.spam, 'spam', ALICE, BOB, '5'),
            triggers: [{ name: 'toBalance', value: '5' }, { name: 'output1', value: '999995' }, revert],
          },
        ],
      }),
    );
    expect(got).not.toHaveProperty('txs.0');
    // The first transfer to TKA was mined in this block: one block earlier BOB held none.
    expect(
      await client.readContract({
        address: TKA,
        abi: demoTokenAbi,
        functionName: 'balanceOf',
        args: [BOB],
        blockNumber: BigInt(event.block.number - 1),
      }),
    ).toBe(0n);
  });

  it('getNativeBalances and tx triggers: balances at the block of the selected addresses, de-duplicated', async () => {
    const config = {
      includeNativeTxs: true,
      getNativeBalances: [{ selectors: ['$fromAddress', '$toAddress', '$toAddress'], type: 'tx' }],
      triggers: [{ type: 'tx', contractAddress: TKA, functionAbi: balanceOf('tka'), inputs: ['$toAddress'] }],
    } as Partial<StreamConfig>;
    const { id, body: got } = await deliver(config, [BOB]);
    const at = { blockNumber: BigInt(event.block.number) };
    const [alice, bob] = await Promise.all([
      client.getBalance({ address: ALICE, ...at }),
      client.getBalance({ address: BOB, ...at }),
    ]);
    expect(bob).toBe(10_001n * 10n ** 18n); // anvil's 10,000 ETH plus the 1 ETH of this block
    expect(got).toEqual(
      body(id, config, {
        txs: [{ ...wireTx(txOf(txs.native)), triggers: [{ name: 'tka', value: '250000' }] }],
        nativeBalances: [
          { address: ALICE, balance: alice.toString() },
          { address: BOB, balance: bob.toString() },
        ],
      }),
    );
  });

  it('makes an identical call once per block', async () => {
    const reader = readers().forBlock(31337, event.block);
    const call = { to: TKA, data: '0x18160ddd' as Hex }; // totalSupply()
    const first = reader.call(call);
    expect(reader.call({ ...call })).toBe(first);
    const other = readers().forBlock(31337, event.block).call(call);
    expect(other).not.toBe(first);
    expect(BigInt(await first)).toBe(1_000_000n);
    expect(await other).toBe(await first);
    expect(TRANSFER_TOPIC).toBe(toEventSelector('Transfer(address,address,uint256)'));
  });
});

describe('removal notices', () => {
  it('an orphaned block: the opted-in stream gets its unconfirmed body again marked removed, once; the others nothing', async () => {
    const notifying = { ...transferConfig, notifyRemovals: true } as Partial<StreamConfig>;
    const plain = transferConfig;
    const ids: string[] = [];
    const logger = createLogger('test', 'silent');
    const store = createStreamStore({ pool, logger });
    for (const config of [notifying, plain]) {
      const { id } = await deliver(config, [BOB]);
      await store.reload(id);
      ids.push(id);
    }
    const [notifyingId, plainId] = ids as [string, string];
    const handle = handlerOf(store, logger);
    const removed = { type: 'removed', v: 2, chainId: 31337, block: event.block } as never;
    expect(await handle(removed)).toBe(1);
    // A replayed removal finds the notice's row (still pending) and hands Redis the same job again.
    expect(await handle(removed)).toBe(1);

    const rows = await pool.query<{ stream_id: string; confirmed: boolean; removal: boolean; body: string }>(
      'SELECT stream_id, confirmed, removal, body FROM deliveries WHERE stream_id = ANY($1) ORDER BY removal',
      [ids],
    );
    const of = (id: string) => rows.rows.filter((r) => r.stream_id === id);
    expect(of(plainId).map((r) => r.removal)).toEqual([false]);
    expect(of(notifyingId)).toHaveLength(2); // the unconfirmed webhook and one notice, replay or not
    const [unconfirmed, notice] = of(notifyingId);
    expect(unconfirmed?.removal).toBe(false);
    expect(notice?.removal).toBe(true);
    expect(notice?.confirmed).toBe(false);
    const expected = body(notifyingId, notifying, {
      logs: [wireLog(logsOf(txs.tka)[0]!), wireLog(logsOf(txs.spam)[0]!)],
      erc20Transfers: [
        transfer(txs.tka, 'tka', ALICE, BOB, '250000'),
        transfer(txs.spam, 'spam', ALICE, BOB, '5'),
      ],
    });
    expect(JSON.parse(unconfirmed!.body)).toEqual(expected);
    // The same items, `removed` right after `confirmed`; serialized as the signature expects.
    expect(notice?.body.startsWith('{"confirmed":false,"removed":true,"chainId":"0x7a69",')).toBe(true);
    expect(notice?.body).toBe(
      unconfirmed!.body.replace('{"confirmed":false,', '{"confirmed":false,"removed":true,'),
    );
    expect(webhookBody.safeParse(JSON.parse(notice!.body)).error?.issues).toBeUndefined();
  });

  it('a stream in error gets its notice held, like its other deliveries', async () => {
    const config = { ...transferConfig, notifyRemovals: true } as Partial<StreamConfig>;
    const { id } = await deliver(config, [BOB]);
    await pool.query(`UPDATE streams SET status = 'error' WHERE id = $1`, [id]);
    const logger = createLogger('test', 'silent');
    const store = createStreamStore({ pool, logger });
    await store.reload(id);
    const handle = handlerOf(store, logger);
    expect(await handle({ type: 'removed', v: 2, chainId: 31337, block: event.block } as never)).toBe(0);
    const { rows } = await pool.query<{ status: string }>(
      'SELECT status FROM deliveries WHERE stream_id = $1 AND removal',
      [id],
    );
    expect(rows.map((r) => r.status)).toEqual(['held']);
  });
});

/** The block as a follower publishes it when no stream read its transactions yet: logs only. */
const lean = (e: FullBlockEvent): FullBlockEvent => ({
  ...e,
  transactions: [],
  hasTransactions: false,
  internalTransactions: [],
  hasInternalTransactions: false,
});

describe('a block that reaches the matcher without what a stream reads', () => {
  const kinds: [string, Partial<StreamConfig>, () => string[]][] = [
    ['native transactions', { includeNativeTxs: true }, () => [BOB]],
    ['internal transactions', { includeInternalTxs: true }, () => [CAROL]],
    [
      'native and internal transactions with all their logs',
      {
        includeNativeTxs: true,
        includeInternalTxs: true,
        includeAllTxLogs: true,
        includeContractLogs: true,
        ...transferConfig,
      },
      () => [BOB, CAROL],
    ],
    [
      'the transactions of logs matched under an advanced option',
      {
        ...transferConfig,
        advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', includeNativeTxs: true }],
      } as Partial<StreamConfig>,
      () => [TKA],
    ],
  ];
  for (const [kind, config, addresses] of kinds) {
    it(`${kind}: read from the node first, the very webhook the whole block gives`, async () => {
      const outcomes: string[] = [];
      const fromFull = await deliver(config, addresses());
      const fromLean = await deliver(config, addresses(), {
        block: lean(event),
        onCompletion: (o) => outcomes.push(o),
      });
      expect(fromFull.body).toBeDefined();
      expect(fromLean.body).toEqual({ ...fromFull.body, streamId: fromLean.id });
      expect(outcomes).toEqual(['completed']);
    });
  }

  it('a stream that reads only logs takes the lean block as it is: nothing is read from the node', async () => {
    const outcomes: string[] = [];
    const { id, body: got } = await deliver(transferConfig, [TKA], {
      block: lean(event),
      onCompletion: (o) => outcomes.push(o),
    });
    expect(got).toEqual(
      body(id, transferConfig, {
        logs: logsOf(txs.tka).map(wireLog),
        erc20Transfers: [transfer(txs.tka, 'tka', ALICE, BOB, '250000')],
      }),
    );
    expect(outcomes).toEqual([]);
  });

  it('waits while the node cannot trace the block, and says why; completes once it can', async () => {
    const faulty = await startFaultyRpc({
      upstream: anvil.rpcUrl,
      faults: { missingMethods: ['debug_trace*'] },
    });
    try {
      const broken = createBlockReaders({ rpcUrls: new Map([[31337, faulty.url]]), concurrency: 4 });
      const config = { includeInternalTxs: true } as Partial<StreamConfig>;
      await expect(deliver(config, [CAROL], { block: lean(event), readers: broken })).rejects.toThrow(
        /does not support debug_traceBlockByHash: block \d+ .* waits for its internal transactions/,
      );
      faulty.setFaults({ missingMethods: undefined });
      const fixed = createBlockReaders({ rpcUrls: new Map([[31337, faulty.url]]), concurrency: 4 });
      const { body: got } = await deliver(config, [CAROL], { block: lean(event), readers: fixed });
      expect(got?.['txsInternal']).toEqual([
        expect.objectContaining({
          from: FWD,
          to: CAROL,
          value: '3000000000000000000',
          transactionHash: txs.forward,
        }),
      ]);
    } finally {
      await faulty.close();
    }
  });

  it('a block the node has replaced (orphaned): the streams that read its transactions are owed nothing, the others get theirs', async () => {
    const orphan: FullBlockEvent = {
      ...lean(event),
      block: { ...event.block, hash: `0x${'ab'.repeat(32)}` as Hex },
    };
    const outcomes: string[] = [];
    const native = await deliver({ includeNativeTxs: true }, [BOB], {
      block: orphan,
      onCompletion: (o) => outcomes.push(o),
    });
    expect(native.body).toBeUndefined();
    expect(outcomes).toEqual(['orphaned']);
    const logs = await deliver(transferConfig, [TKA], { block: orphan });
    expect(logs.body?.['erc20Transfers']).toHaveLength(1);
  });
});
