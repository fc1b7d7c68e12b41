import { describe, expect, it } from 'vitest';
import { blockEvent } from './blockEvent.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('blockEvent', () => {
  it('parses a removed event and lower-cases hashes', () => {
    const parsed = blockEvent.parse({
      type: 'removed',
      v: 1,
      chainId: 1,
      block: { number: 5, hash: h(0xab).toUpperCase().replace('0X', '0x'), parentHash: h(1), timestamp: 10 },
    });
    expect(parsed.block.hash).toBe(h(0xab));
  });

  it('keeps uint256 values as exact decimal strings and rejects numbers', () => {
    const base = {
      type: 'new',
      v: 1,
      chainId: 1,
      block: { number: 1, hash: h(2), parentHash: h(1), timestamp: 1 },
      transactions: [],
      logs: [],
      internalTransactions: [],
      tokens: [],
      accounts: [],
      hasTransactions: false,
      hasInternalTransactions: false,
    };
    const transfer = {
      logIndex: 0,
      transactionHash: h(3),
      transactionIndex: 0,
      token: `0x${'a'.repeat(40)}`,
      from: `0x${'0'.repeat(40)}`,
      to: `0x${'b'.repeat(40)}`,
      value: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    };
    const ok = blockEvent.parse({ ...base, transfers: [transfer] });
    expect(ok.type === 'new' && ok.transfers[0]?.value).toBe(transfer.value);
    expect(() => blockEvent.parse({ ...base, transfers: [{ ...transfer, value: 5 }] })).toThrow();
    expect(() => blockEvent.parse({ ...base, transfers: [{ ...transfer, value: '1e18' }] })).toThrow();
  });
});
