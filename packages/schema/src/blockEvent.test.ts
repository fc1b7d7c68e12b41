import { describe, expect, it } from 'vitest';
import { blockEvent } from './blockEvent.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('blockEvent', () => {
  it('parses a removed event and lower-cases hashes', () => {
    const parsed = blockEvent.parse({
      type: 'removed',
      v: 2,
      chainId: 1,
      block: { number: 5, hash: h(0xab).toUpperCase().replace('0X', '0x'), parentHash: h(1), timestamp: 10 },
    });
    expect(parsed.block.hash).toBe(h(0xab));
  });

  it('refuses every payload version but 2, naming it', () => {
    const removed = {
      type: 'removed',
      chainId: 1,
      block: { number: 5, hash: h(2), parentHash: h(1), timestamp: 10 },
    };
    for (const v of [1, 3, undefined]) {
      const parsed = blockEvent.safeParse({ ...removed, v });
      expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
        ['v', `block event version ${v}: only version 2 is accepted`],
      ]);
    }
  });
});

describe('blockEvent transfers', () => {
  const log = (logIndex: number, over: Record<string, unknown> = {}) => ({
    logIndex,
    transactionHash: h(9),
    transactionIndex: 0,
    address: `0x${'a'.repeat(40)}`,
    data: `0x${'0'.repeat(63)}5`,
    topics: [h(1), h(2), h(3)],
    ...over,
  });
  const base = {
    type: 'confirmed',
    v: 2,
    chainId: 1,
    block: { number: 1, hash: h(2), parentHash: h(1), timestamp: 1 },
    transactions: [],
    internalTransactions: [],
    tokens: [],
    accounts: [],
    hasTransactions: false,
    hasInternalTransactions: false,
  };
  const transfer = { logIndex: 1, from: `0x${'0'.repeat(40)}`, to: `0x${'b'.repeat(40)}`, value: '5' };

  it('parses transfers that name a log of the block, with every element checked', () => {
    const logs = Array.from({ length: 40 }, (_, i) => log(i));
    const parsed = blockEvent.parse({ ...base, logs, transfers: [transfer] });
    expect(parsed.type !== 'removed' && parsed.transfers).toEqual([transfer]);
    expect(parsed.type !== 'removed' && parsed.logs).toEqual(logs);
    // Upper-case hex takes the element schema: lower-cased all the same.
    const upper = blockEvent.parse({
      ...base,
      logs: [log(0, { address: `0x${'A'.repeat(40)}` })],
      transfers: [],
    });
    expect(upper.type !== 'removed' && upper.logs[0]?.address).toBe(`0x${'a'.repeat(40)}`);
  });

  it('reports bad elements with their paths, like z.array, and transfers of missing logs', () => {
    const bad = blockEvent.safeParse({
      ...base,
      logs: [log(0), log(1, { data: '0x1', logIndex: -1 })],
      transfers: [{ ...transfer, value: '01' }],
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'logs.1.data',
      'logs.1.logIndex',
      'transfers.0.value',
    ]);
    const missing = blockEvent.safeParse({ ...base, logs: [log(0)], transfers: [transfer] });
    expect(missing.error?.issues.map((i) => i.path.join('.'))).toEqual(['transfers.0.logIndex']);
    const twice = blockEvent.safeParse({ ...base, logs: [log(1)], transfers: [transfer, transfer] });
    expect(twice.error?.issues.map((i) => i.path.join('.'))).toEqual(['transfers.1.logIndex']);
  });

  it('keeps uint256 values as exact decimal strings and rejects numbers', () => {
    const max = '115792089237316195423570985008687907853269984665640564039457584007913129639935';
    const ok = blockEvent.parse({ ...base, logs: [log(1)], transfers: [{ ...transfer, value: max }] });
    expect(ok.type !== 'removed' && ok.transfers[0]?.value).toBe(max);
    for (const value of [5, '1e18'])
      expect(() =>
        blockEvent.parse({ ...base, logs: [log(1)], transfers: [{ ...transfer, value }] }),
      ).toThrow();
  });
});
