import { DEFAULT_STREAM_LIMITS } from '@tributary/stream-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';
import { DEFAULT_ACCOUNT_QUOTAS } from './streamLimitsEnv.ts';

// What one account may keep, and how large a stream body may be: every limit over the HTTP API,
// each refused with a 422 that names it, and nothing changed by a refused call.
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;

beforeAll(async () => {
  gw = await startTestGateway({
    streams: true,
    limits: {
      stream: { ...DEFAULT_STREAM_LIMITS, topic0: 2, filterValues: 3 },
      quotas: {
        ...DEFAULT_ACCOUNT_QUOTAS,
        streamsPerAccount: 2,
        addressesPerStream: 3,
        addressesPerAccount: 4,
      },
    },
  });
  receiver = await startTestReceiver();
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

const call = async (method: string, path: string, body: unknown) => {
  const res = await gw.request(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const stream = (extra: Record<string, unknown> = {}) => ({
  webhookUrl: receiver.url,
  description: 'quota',
  tag: 'quota',
  chainIds: ['0x7a69'],
  includeNativeTxs: true,
  ...extra,
});
const addressesOf = async (id: string) =>
  Number(
    (
      await gw.db.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM stream_addresses WHERE stream_id = $1',
        [id],
      )
    ).rows[0]?.n,
  );

describe('account quotas and stream limits', () => {
  it('refuses a stream body over a limit with a 422 naming it, and takes one within', async () => {
    const transfer = 'Transfer(address,address,uint256)';
    const abi = [
      {
        type: 'event',
        name: 'Transfer',
        anonymous: false,
        inputs: [
          { name: 'from', type: 'address', indexed: true },
          { name: 'to', type: 'address', indexed: true },
          { name: 'value', type: 'uint256', indexed: false },
        ],
      },
    ];
    const logs = { includeContractLogs: true, abi, topic0: [transfer, transfer, transfer] };
    expect(await call('PUT', '/streams/evm', stream(logs))).toEqual({
      status: 422,
      body: {
        message: 'Validation Failed',
        details: { topic0: { message: '3 entries: the limit is 2 (LIMIT_TOPIC0)' } },
      },
    });
    const filter = { in: ['to', [address(1), address(2), address(3), address(4)]] };
    const over = await call(
      'PUT',
      '/streams/evm',
      stream({ ...logs, topic0: [transfer], advancedOptions: [{ topic0: transfer, filter }] }),
    );
    expect(over.status).toBe(422);
    expect(over.body['details']).toEqual({
      advancedOptions: { message: '4 values in in/nin lists: the limit is 3 (LIMIT_FILTER_VALUES)' },
    });
    const { rows } = await gw.db.pool.query('SELECT id FROM streams');
    expect(rows).toEqual([]);
  });

  it('keeps an account within its streams and addresses; a refused change changes nothing', async () => {
    const first = await call('PUT', '/streams/evm', stream());
    const second = await call('PUT', '/streams/evm', stream());
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await call('PUT', '/streams/evm', stream())).toEqual({
      status: 422,
      body: {
        message: 'Validation Failed',
        details: {
          streams: { message: 'this account has 2 streams: the limit is 2 (LIMIT_STREAMS_PER_ACCOUNT)' },
        },
      },
    });
    const a = first.body['id'] as string;
    const b = second.body['id'] as string;
    expect(
      (await call('POST', `/streams/evm/${a}/address`, { address: [address(1), address(2), address(3)] }))
        .status,
    ).toBe(200);
    // A fourth address on one stream: over the stream's quota; nothing added.
    expect(await call('POST', `/streams/evm/${a}/address`, { address: address(4) })).toEqual({
      status: 422,
      body: {
        message: 'Validation Failed',
        details: {
          address: {
            message: 'the stream would hold 4 addresses: the limit is 3 (LIMIT_ADDRESSES_PER_STREAM)',
          },
        },
      },
    });
    expect(await addressesOf(a)).toBe(3);
    // Two on the other stream: five for the account, over its quota; a replace that fits is taken.
    const two = await call('POST', `/streams/evm/${b}/address`, { address: [address(5), address(6)] });
    expect(two.body).toEqual({
      message: 'Validation Failed',
      details: {
        address: {
          message:
            "the account's streams would hold 5 addresses: the limit is 4 (LIMIT_ADDRESSES_PER_ACCOUNT)",
        },
      },
    });
    expect(await addressesOf(b)).toBe(0);
    expect((await call('PATCH', `/streams/evm/${a}/address`, { address: [address(7)] })).status).toBe(200);
    expect(
      (await call('POST', `/streams/evm/${b}/address`, { address: [address(5), address(6)] })).status,
    ).toBe(200);
    expect([await addressesOf(a), await addressesOf(b)]).toEqual([1, 2]);
    // Deleting a stream makes room for another.
    expect((await call('DELETE', `/streams/evm/${a}`, {})).status).toBe(200);
    expect((await call('PUT', '/streams/evm', stream())).status).toBe(200);
  });
});
