import Moralis from 'moralis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRANSFER_TOPIC,
  addr,
  blockHash,
  blockTime,
  insertBlocks,
  insertLogs,
  insertToken,
  insertTransfers,
  setBalance,
  txHash,
  followChains,
} from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

// The official SDK, unchanged, pointed at our gateway: it sends `chain` as hex and arrays in
// bracket form, and parses our responses with its own types.
const CHAIN = 1;
const W = addr('sdk-wallet');
const TOKEN = addr('sdk-token');
const OTHER_TOKEN = addr('sdk-other');
const X = addr('sdk-x');
const MAX_UINT256 = 2n ** 256n - 1n;
const topicOf = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}`;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  await followChains(gw.db.pool, [CHAIN]);
  const pool = gw.db.pool;
  await insertBlocks(pool, CHAIN, [10, 11, 12]);
  await insertToken(pool, {
    chainId: CHAIN,
    address: TOKEN,
    name: 'Sdk Token',
    symbol: 'SDK',
    decimals: 18,
    totalSupply: 10n ** 21n,
  });
  await insertTransfers(pool, [
    { chainId: CHAIN, block: 10, logIndex: 0, token: TOKEN, from: X, to: W, value: 3n * 10n ** 18n },
    { chainId: CHAIN, block: 11, logIndex: 2, token: OTHER_TOKEN, from: X, to: W, value: MAX_UINT256 },
    { chainId: CHAIN, block: 12, logIndex: 1, token: TOKEN, from: W, to: X, value: 10n ** 18n },
  ]);
  await insertLogs(pool, [
    {
      chainId: CHAIN,
      block: 10,
      logIndex: 0,
      address: TOKEN,
      topics: [TRANSFER_TOPIC, topicOf(X), topicOf(W)],
      data: '0x29a2241af62c0000',
    },
    {
      chainId: CHAIN,
      block: 12,
      logIndex: 1,
      address: TOKEN,
      topics: [TRANSFER_TOPIC, topicOf(W), topicOf(X)],
      data: '0x0de0b6b3a7640000',
    },
  ]);
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: W, balance: 2n * 10n ** 18n });
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: X, balance: 998n * 10n ** 18n });
  await Moralis.start({ apiKey: gw.apiKey.key, evmApiBaseUrl: `${gw.baseUrl}/api/v2.2` });
});

afterAll(async () => {
  await gw?.close();
});

describe('the moralis SDK against the gateway', () => {
  it('getWalletTokenTransfers', async () => {
    const response = await Moralis.EvmApi.token.getWalletTokenTransfers({
      chain: '0x1',
      address: W,
      contractAddresses: [TOKEN],
      limit: 1,
    });
    expect(response.raw.total).toBe('2');
    expect(response.pagination.page).toBe('0');
    expect(response.hasNext()).toBe(true);
    const [first] = response.result;
    expect(first?.toJSON()).toMatchObject({
      chain: '0x1',
      address: TOKEN,
      blockNumber: '12',
      blockHash: blockHash(CHAIN, 12),
      blockTimestamp: blockTime(12),
      transactionHash: txHash(CHAIN, 12, 1),
      fromAddress: W,
      toAddress: X,
      value: (10n ** 18n).toString(),
      logIndex: 1,
      tokenName: 'Sdk Token',
      tokenDecimals: '18',
    });
    const next = await response.next();
    expect(next.pagination.page).toBe('1');
    expect(next.result.map((t) => t.toJSON().blockNumber)).toEqual(['10']);
    expect(next.hasNext()).toBe(false);
  });

  it('keeps a uint256 value exact through the SDK', async () => {
    const response = await Moralis.EvmApi.token.getWalletTokenTransfers({
      chain: '0x1',
      address: W,
      contractAddresses: [OTHER_TOKEN],
    });
    expect(response.result).toHaveLength(1);
    // The SDK's JSON.parse turns the wire integer into a double; the wire itself has every digit
    // (see walletTransfers.test.ts). What the SDK exposes is its BigNumber of that double.
    expect(response.result[0]?.value.toBigInt()).toBe(BigInt(Number(MAX_UINT256)));
  });

  it('getContractLogs', async () => {
    const response = await Moralis.EvmApi.events.getContractLogs({
      chain: '0x1',
      address: TOKEN,
      topic0: TRANSFER_TOPIC,
      fromBlock: '10',
    });
    const logs = response.result.map((l) => l.toJSON());
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatchObject({
      chain: '0x1',
      address: TOKEN,
      blockNumber: 12,
      logIndex: 1,
      transactionHash: txHash(CHAIN, 12, 1),
      data: '0x0de0b6b3a7640000',
      topics: [TRANSFER_TOPIC, topicOf(W), topicOf(X), ''],
    });
    expect(response.pagination.cursor).toBe('');
    expect(response.hasNext()).toBe(false);
  });

  it('getTokenOwners', async () => {
    const response = await Moralis.EvmApi.token.getTokenOwners({ chain: '0x1', tokenAddress: TOKEN });
    expect(response.toJSON()).toEqual({
      page: '0',
      page_size: '100',
      cursor: '',
      total_supply: '1000000000000000000000',
      result: [
        {
          owner_address: X,
          owner_address_label: null,
          balance: '998000000000000000000',
          balance_formatted: '998',
          usd_value: null,
          is_contract: false,
          percentage_relative_to_total_supply: 99.8,
        },
        {
          owner_address: W,
          owner_address_label: null,
          balance: '2000000000000000000',
          balance_formatted: '2',
          usd_value: null,
          is_contract: false,
          percentage_relative_to_total_supply: 0.2,
        },
      ],
    });
  });
});
