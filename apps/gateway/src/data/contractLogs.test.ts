import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRANSFER_TOPIC,
  addr,
  blockHash,
  blockTime,
  hash32,
  insertBlocks,
  insertLogs,
  txHash,
  followChains,
} from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const CHAIN = 1;
const C = addr('contract');
const OTHER = addr('other-contract');
const APPROVAL_TOPIC = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
const topicOf = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}`;

let gw: TestGateway;

async function get(path: string) {
  const res = await gw.request(path);
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { result: Array<Record<string, unknown>> },
  };
}

const numbers = (body: { result: Array<Record<string, unknown>> }) =>
  body.result.map((r) => `${r.block_number}/${r.log_index}`);

beforeAll(async () => {
  gw = await startTestGateway();
  await followChains(gw.db.pool, [CHAIN]);
  await insertBlocks(gw.db.pool, CHAIN, [200, 201, 202, 203, 204]);
  await insertLogs(gw.db.pool, [
    {
      chainId: CHAIN,
      block: 200,
      logIndex: 2,
      address: C,
      topics: [TRANSFER_TOPIC, topicOf(addr('a')), topicOf(addr('b'))],
      data: `0x${'00'.repeat(31)}2a`,
    },
    {
      chainId: CHAIN,
      block: 201,
      logIndex: 0,
      address: C,
      topics: [TRANSFER_TOPIC, topicOf(addr('b')), topicOf(addr('c'))],
      data: '0x',
    },
    {
      chainId: CHAIN,
      block: 201,
      logIndex: 5,
      address: C,
      topics: [APPROVAL_TOPIC, topicOf(addr('a')), topicOf(addr('c'))],
      data: '0x01',
    },
    { chainId: CHAIN, block: 203, logIndex: 1, address: C, topics: [TRANSFER_TOPIC], data: '0xdeadbeef' },
    { chainId: CHAIN, block: 204, logIndex: 0, address: OTHER, topics: [TRANSFER_TOPIC], data: '0x' },
  ]);
});

afterAll(async () => {
  await gw?.close();
});

describe('GET /api/v2.2/:address/logs', () => {
  it('returns the logs of the contract with that topic0, exact shape, absent topics as ""', async () => {
    const { status, body } = await get(
      `/api/v2.2/${C}/logs?chain=0x1&topic0=${TRANSFER_TOPIC.toUpperCase().replace('0X', '0x')}`,
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      page: '0',
      page_size: '100',
      cursor: '',
      result: [
        {
          transaction_hash: txHash(CHAIN, 203, 1),
          address: C,
          block_timestamp: blockTime(203).toISOString(),
          block_number: 203,
          block_hash: blockHash(CHAIN, 203),
          data: '0xdeadbeef',
          topic0: TRANSFER_TOPIC,
          topic1: '',
          topic2: '',
          topic3: '',
          transaction_index: 1,
          log_index: 1,
        },
        expect.objectContaining({
          block_number: 201,
          log_index: 0,
          topic1: topicOf(addr('b')),
          topic2: topicOf(addr('c')),
          topic3: '',
          data: '0x',
        }),
        {
          transaction_hash: txHash(CHAIN, 200, 2),
          address: C,
          block_timestamp: '2024-01-01T00:40:00.000Z',
          block_number: 200,
          block_hash: blockHash(CHAIN, 200),
          data: `0x${'00'.repeat(31)}2a`,
          topic0: TRANSFER_TOPIC,
          topic1: topicOf(addr('a')),
          topic2: topicOf(addr('b')),
          topic3: '',
          transaction_index: 2,
          log_index: 2,
        },
      ],
    });
    expect(body).not.toHaveProperty('total');
  });

  it('applies block_number over from_block/to_block, and blocks over dates', async () => {
    const base = `/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}`;
    expect(numbers((await get(`${base}&block_number=201&from_block=200&to_block=203`)).body)).toEqual([
      '201/0',
    ]);
    expect(numbers((await get(`${base}&from_block=201`)).body)).toEqual(['203/1', '201/0']);
    expect(numbers((await get(`${base}&to_block=201&order=ASC`)).body)).toEqual(['200/2', '201/0']);
    // Any block parameter wins over both dates (spec 4.2 rule 4): to_date is ignored here.
    const t200 = blockTime(200).toISOString();
    expect(numbers((await get(`${base}&from_block=201&to_date=${t200}`)).body)).toEqual(['203/1', '201/0']);
    // Dates alone resolve through the block timestamps.
    expect(
      numbers(
        (
          await get(
            `${base}&from_date=${blockTime(201).getTime() / 1000}&to_date=${encodeURIComponent(blockTime(202).toUTCString())}`,
          )
        ).body,
      ),
    ).toEqual(['201/0']);
    expect(numbers((await get(`${base}&to_date=${t200}`)).body)).toEqual(['200/2']);
  });

  it('requires topic0 and checks every parameter', async () => {
    const cases: Array<[string, string]> = [
      [`/api/v2.2/${C}/logs`, 'topic0 is required'],
      [`/api/v2.2/${C}/logs?topic0=Transfer`, 'topic0 must be a 0x-prefixed 32-byte hex value'],
      [`/api/v2.2/not-an-address/logs?topic0=${TRANSFER_TOPIC}`, 'Invalid address provided'],
      [`/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}&chain=nowhere`, 'Invalid chain provided: nowhere'],
      [
        `/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}&block_number=abc`,
        'block_number must be a non-negative integer block number',
      ],
      [
        `/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}&to_date=yesterday-ish`,
        'to_date must be a date (ISO 8601, RFC 2822 or Unix seconds)',
      ],
      // JavaScript reads this date; PostgreSQL cannot hold it (it was a 500).
      [
        `/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}&from_date=-271821-04-20T00:00:00Z`,
        'from_date must be a date from 0001-01-01 to 9999-12-31',
      ],
      [
        `/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}&limit=1000`,
        'limit must be an integer between 1 and 100',
      ],
    ];
    for (const [path, message] of cases) {
      const { status, body } = await get(path);
      expect({ path, status, body }).toEqual({ path, status: 400, body: { message } });
    }
  });

  it('pages with a cursor bound to the query', async () => {
    const base = `/api/v2.2/${C}/logs?topic0=${TRANSFER_TOPIC}&limit=2`;
    const p0 = await get(base);
    expect(numbers(p0.body)).toEqual(['203/1', '201/0']);
    expect(p0.body.page).toBe('0');
    const p1 = await get(`${base}&cursor=${p0.body.cursor}`);
    expect(numbers(p1.body)).toEqual(['200/2']);
    expect(p1.body).toMatchObject({ page: '1', page_size: '2', cursor: '' });
    const reused = await get(
      `/api/v2.2/${C}/logs?topic0=${hash32('other')}&limit=2&cursor=${p0.body.cursor}`,
    );
    expect(reused).toEqual({
      status: 400,
      body: { message: 'cursor does not match the query parameters it was issued for' },
    });
  });
});
