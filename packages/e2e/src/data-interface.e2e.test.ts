import {
  type DemoDeployment,
  type DevnetClient,
  createDevnetClient,
  deployDemo,
  generateActivity,
} from '@tributary/devnet';
import { startAnvil } from '@tributary/testkit';
import Moralis from 'moralis';
import { type Address, type Hex, type PublicClient, formatUnits } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChainSnapshot,
  type TokenTruth,
  chainTransfers,
  contractLogs,
  expectedLogRecord,
  expectedTransferRecord,
  readChain,
  readToken,
  tokenOwners,
  walletTransfers,
} from './harness/chainTruth.ts';
import { type GatewayClient, createGatewayClient, transferRecords } from './harness/createGatewayClient.ts';
import { waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { alice, bob, mine, tokenActivity } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// follower + projector + gateway as child processes over a private anvil; every answer of the
// data interface is compared, field by field, with what the node says.
const CHAIN = '0x7a69';
let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let gw: GatewayClient;
let me: Address;
const stopAnvil: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil.push(anvil.stop);
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  me = client.account.address.toLowerCase() as Address;
  demo = await deployDemo(client);
  await tokenActivity(client, demo, 1n); // history: the follower backfills it
  pipeline = await startPipeline({
    name: 'data',
    apps: ['chain-follower', 'projector', 'gateway'],
    anvil,
  });
  await tokenActivity(client, demo, 2n); // at the head: new, then confirmed
  await mine(client, 2);
  await waitProjected(pipeline, chain);
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  for (const stop of stopAnvil) await stop();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

async function tokenTruths(snapshot: ChainSnapshot): Promise<Map<string, TokenTruth>> {
  const out = new Map<string, TokenTruth>();
  for (const t of chainTransfers(snapshot)) {
    if (!out.has(t.token)) out.set(t.token, await readToken(chain, t.token));
  }
  return out;
}

async function expectedTransfers(snapshot: ChainSnapshot, wallet: string) {
  const tokens = await tokenTruths(snapshot);
  return walletTransfers(snapshot, wallet).map((t) =>
    expectedTransferRecord(t, tokens.get(t.token)!, snapshot.blocks.get(t.log.blockNumber!)!),
  );
}

describe('the data interface over the whole pipeline', () => {
  it('returns every ERC20 transfer of each wallet exactly as the chain has it', async () => {
    const snapshot = await readChain(chain);
    for (const wallet of [client.account.address, alice, bob, demo.emitter]) {
      const pages = await gw.getAllPages(`/api/v2.2/${wallet}/erc20/transfers`, { chain: CHAIN });
      const expected = await expectedTransfers(snapshot, wallet);
      expect(pages.flatMap(transferRecords)).toEqual(expected);
      expect(pages.map((p) => [p.body.page, p.body.page_size, p.body.total])).toEqual(
        pages.map((_, i) => [String(i), '100', String(expected.length)]),
      );
    }
    // The comparison covered each shape of transfer.
    const mine_ = walletTransfers(snapshot, me);
    const bobs = walletTransfers(snapshot, bob);
    expect(mine_.some((t) => t.from === `0x${'0'.repeat(40)}`)).toBe(true); // mint
    expect(mine_.some((t) => t.to === `0x${'0'.repeat(40)}`)).toBe(true); // burn
    expect(mine_.some((t) => t.from === t.to)).toBe(true); // self-transfer
    expect(bobs.some((t) => t.value === 0n)).toBe(true);
    expect(bobs.some((t) => t.value > 2n ** 64n)).toBe(true);
  });

  it('returns every log of a contract by topic0, with absent topics as ""', async () => {
    const snapshot = await readChain(chain);
    const topicCounts = new Set<number>();
    for (const address of [demo.emitter, demo.demo, demo.bytes32]) {
      const topic0s = new Set(
        snapshot.logs
          .filter((l) => l.address.toLowerCase() === address.toLowerCase() && l.topics[0])
          .map((l) => l.topics[0] as Hex),
      );
      expect(topic0s.size).toBeGreaterThan(0);
      for (const topic0 of topic0s) {
        const pages = await gw.getAllPages(`/api/v2.2/${address}/logs`, {
          chain: CHAIN,
          topic0,
          from_block: 0,
        });
        const expected = contractLogs(snapshot, address, topic0);
        for (const l of expected) topicCounts.add(l.topics.length);
        expect(pages.flatMap((p) => p.body.result)).toEqual(
          expected.map((l) => expectedLogRecord(l, snapshot.blocks.get(l.blockNumber!)!)),
        );
        expect(pages.map((p) => [p.body.page, p.body.page_size])).toEqual(
          pages.map((_, i) => [String(i), '100']),
        );
      }
    }
    expect([...topicCounts].sort()).toEqual([1, 2, 3, 4]);
  });

  it('returns every holder of each token with its balanceOf at the head', async () => {
    const snapshot = await readChain(chain);
    for (const token of [demo.demo, demo.six, demo.bytes32, demo.reverting]) {
      const truth = await readToken(chain, token);
      const owners = await tokenOwners(chain, snapshot, token);
      expect(owners.length).toBeGreaterThan(0);
      const expected = owners.map((o) => ({
        owner_address: o.owner,
        owner_address_label: null,
        balance: o.balance.toString(),
        balance_formatted: truth.decimals === null ? null : formatUnits(o.balance, truth.decimals),
        usd_value: null,
        is_contract: o.isContract,
        percentage_relative_to_total_supply:
          truth.totalSupply === null
            ? null
            : expect.closeTo((Number(o.balance) / Number(truth.totalSupply)) * 100, 9),
      }));
      const envelope = (page: number) => ({
        page: String(page),
        page_size: '100',
        cursor: '',
        ...(truth.totalSupply === null ? {} : { total_supply: truth.totalSupply.toString() }),
        result: expected,
      });
      const one = await gw.get(`/api/v2.2/erc20/${token}/owners`, { chain: CHAIN });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(envelope(0));
      // The same holders across pages of one.
      const paged = await gw.getAllPages(`/api/v2.2/erc20/${token}/owners`, { chain: CHAIN, limit: 1 });
      expect(paged.flatMap((p) => p.body.result)).toEqual(expected);
    }
    expect(snapshot.head).toBeGreaterThan(0n);
  });

  it('pages without a duplicate or a gap while new blocks with new transfers keep arriving', async () => {
    const controller = new AbortController();
    const activity = generateActivity({ client, demo, intervalMs: 20, signal: controller.signal });
    const latest = async (table: 'transfers' | 'logs') => {
      const { rows } = await pipeline.pool.query<{ n: string | null }>(
        `SELECT max(block_number) AS n FROM ${table} WHERE chain_id = 31337`,
      );
      return Number(rows[0]?.n ?? -1);
    };
    const twoIndexedTopic = (await readChain(chain)).logs.find(
      (l) => l.address.toLowerCase() === demo.emitter.toLowerCase() && l.topics.length === 3,
    )!.topics[0]!;
    const emitterLogs = async () => {
      const { rows } = await pipeline.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM logs WHERE chain_id = 31337 AND address = $1 AND topic0 = $2',
        [Buffer.from(demo.emitter.slice(2), 'hex'), Buffer.from(twoIndexedTopic.slice(2), 'hex')],
      );
      return rows[0]!.n;
    };
    try {
      // Wait for the activity to reach the tables (3 pages of logs at least), so that the pages
      // race with new blocks.
      await waitFor('activity to be projected', async () => (await emitterLogs()) >= 3);

      const transfersL0 = await latest('transfers');
      const logsL0 = await latest('logs');
      const transferPages = [
        await gw.get(`/api/v2.2/${client.account.address}/erc20/transfers`, { chain: CHAIN, limit: 3 }),
      ];
      const logPages = [
        await gw.get(`/api/v2.2/${demo.emitter}/logs`, {
          chain: CHAIN,
          topic0: twoIndexedTopic,
          from_block: 0,
          limit: 1,
          order: 'ASC',
        }),
      ];
      const transfersL1 = await latest('transfers');
      const logsL1 = await latest('logs');
      let arrivedDuringPaging = 0;
      const next = async (
        pages: typeof transferPages,
        path: string,
        query: Record<string, string | number>,
      ) => {
        const cursor = pages.at(-1)!.body.cursor as string;
        if (!cursor) return false;
        // Each page waits for a newer projected transfer first: blocks arrive between pages.
        const before = await latest('transfers');
        await waitFor('a new transfer block', async () => (await latest('transfers')) > before);
        arrivedDuringPaging++;
        pages.push(await gw.get(path, { ...query, cursor }));
        return true;
      };
      let more = true;
      while (more) {
        const a = await next(transferPages, `/api/v2.2/${client.account.address}/erc20/transfers`, {
          chain: CHAIN,
          limit: 3,
        });
        const b = await next(logPages, `/api/v2.2/${demo.emitter}/logs`, {
          chain: CHAIN,
          topic0: twoIndexedTopic,
          from_block: 0,
          limit: 1,
          order: 'ASC',
        });
        more = a || b;
      }
      controller.abort();
      await activity;

      expect(transferPages.every((p) => p.status === 200) && logPages.every((p) => p.status === 200)).toBe(
        true,
      );
      expect(transferPages.length).toBeGreaterThanOrEqual(3);
      expect(logPages.length).toBeGreaterThanOrEqual(3);
      expect(arrivedDuringPaging).toBeGreaterThanOrEqual(2);

      // Transfers, DESC: the first page pinned a head between L0 and L1.
      const transfers = transferPages.flatMap(transferRecords);
      const transfersPin = Math.max(transfersL0, Number(transfers[0]?.['block_number'] ?? -1));
      expect(transfersPin).toBeLessThanOrEqual(transfersL1);
      const transferSnapshot = await readChain(chain, BigInt(transfersPin));
      const expectedTransfers_ = await expectedTransfers(transferSnapshot, me);
      expect(transfers).toEqual(expectedTransfers_);
      expect(transferPages.map((p) => p.body.total)).toEqual(
        transferPages.map(() => String(expectedTransfers_.length)),
      );
      expect((await latest('transfers')) > transfersPin).toBe(true); // newer transfers exist, not listed

      // Logs, ASC: the newest pinned log is the last record.
      const logs = logPages.flatMap((p) => p.body.result);
      const logsPin = Math.max(logsL0, Number(logs.at(-1)?.block_number ?? -1));
      expect(logsPin).toBeLessThanOrEqual(logsL1);
      const logSnapshot = await readChain(chain, BigInt(logsPin));
      expect(logs).toEqual(
        contractLogs(logSnapshot, demo.emitter, twoIndexedTopic)
          .reverse()
          .map((l) => expectedLogRecord(l, logSnapshot.blocks.get(l.blockNumber!)!)),
      );
      expect((await latest('logs')) > logsPin).toBe(true);
    } finally {
      controller.abort();
      await activity.catch(() => {});
    }
  });

  it('works with the official moralis SDK, unchanged', async () => {
    await waitProjected(pipeline, chain);
    const snapshot = await readChain(chain);
    await Moralis.start({ apiKey: pipeline.apiKey.key, evmApiBaseUrl: `${pipeline.gatewayUrl}/api/v2.2` });

    const transfers = await Moralis.EvmApi.token.getWalletTokenTransfers({ chain: CHAIN, address: bob });
    const expected = await expectedTransfers(snapshot, bob);
    expect(expected.some((e) => BigInt(e.value) > 2n ** 64n)).toBe(true);
    expect(transfers.raw.total).toBe(String(expected.length));
    expect(
      transfers.result.map((t) => {
        const j = t.toJSON();
        return { ...j, value: t.value.toBigInt().toString() };
      }),
    ).toEqual(
      expected.map((e) => ({
        chain: CHAIN,
        address: e.address,
        blockNumber: String(e.block_number),
        blockHash: e.block_hash,
        blockTimestamp: new Date(e.block_timestamp),
        transactionHash: e.transaction_hash,
        transactionIndex: e.transaction_index,
        logIndex: e.log_index,
        fromAddress: e.from_address,
        toAddress: e.to_address,
        // The SDK parses the JSON integer into a double: exact up to 2^53, rounded above.
        value: BigInt(Number(e.value)).toString(),
        tokenName: e.token_name,
        tokenSymbol: e.token_symbol,
        tokenLogo: e.token_logo,
        tokenDecimals: e.token_decimals,
        possibleSpam: e.possible_spam,
        verifiedContract: e.verified_contract,
        valueDecimal: e.value_decimal,
        fromAddressLabel: null,
        toAddressLabel: null,
        verifiedCollection: false,
      })),
    );

    const twoIndexed = snapshot.logs.find(
      (l) => l.address.toLowerCase() === demo.emitter.toLowerCase() && l.topics.length === 3,
    )!.topics[0]!;
    const logs = await Moralis.EvmApi.events.getContractLogs({
      chain: CHAIN,
      address: demo.emitter,
      topic0: twoIndexed,
      fromBlock: '0',
    });
    expect(logs.result.length).toBeGreaterThan(1);
    expect(logs.result.map((l) => l.toJSON())).toEqual(
      contractLogs(snapshot, demo.emitter, twoIndexed).map((l) => ({
        chain: CHAIN,
        address: l.address.toLowerCase(),
        blockNumber: Number(l.blockNumber),
        blockHash: l.blockHash,
        blockTimestamp: new Date(Number(snapshot.blocks.get(l.blockNumber!)!.timestamp) * 1000).toISOString(),
        data: l.data,
        logIndex: l.logIndex,
        transactionHash: l.transactionHash,
        transactionIndex: l.transactionIndex,
        topics: [0, 1, 2, 3].map((i) => l.topics[i] ?? ''),
      })),
    );

    const truth = await readToken(chain, demo.six);
    const owners = await Moralis.EvmApi.token.getTokenOwners({ chain: CHAIN, tokenAddress: demo.six });
    expect(
      owners.result.map((o) => ({
        owner: o.ownerAddress,
        balance: o.balance,
        formatted: o.balanceFormatted,
        isContract: o.isContract,
      })),
    ).toEqual(
      (await tokenOwners(chain, snapshot, demo.six)).map((o) => ({
        owner: o.owner,
        balance: o.balance.toString(),
        formatted: formatUnits(o.balance, truth.decimals!),
        isContract: o.isContract,
      })),
    );
  });
});
