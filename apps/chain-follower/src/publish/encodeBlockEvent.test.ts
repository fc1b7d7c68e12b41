import { blockEvent } from '@tributary/schema';
import { describe, expect, it } from 'vitest';
import { encodeBlockEvent } from './encodeBlockEvent.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;

function event(logs: number, name: string) {
  return {
    type: 'confirmed' as const,
    v: 2 as const,
    chainId: 1,
    block: { number: 1, hash: h(2), parentHash: h(1), timestamp: 1 },
    transactions: [],
    logs: Array.from({ length: logs }, (_, i) => ({
      logIndex: i,
      transactionHash: h(9),
      transactionIndex: 0,
      address: addr(0xaa),
      data: h(i),
      topics: [h(1), h(0), h(0x100 + i)],
    })),
    internalTransactions: [],
    transfers: Array.from({ length: logs }, (_, i) => ({
      logIndex: logs - 1 - i,
      from: addr(0),
      to: addr(0x100 + i),
      value: String(i),
    })),
    tokens: [],
    tokenInfo: [{ address: addr(0xaa), name, symbol: 'T', decimals: 18 }],
    accounts: [],
    hasTransactions: false,
    hasInternalTransactions: false,
  };
}

describe('encodeBlockEvent', () => {
  it('gives JSON that the schema parses back to the same event, non-ASCII names included', () => {
    for (const e of [event(3, 'plain'), event(40, 'Ünïcødé 🦊')]) {
      const bytes = encodeBlockEvent(e);
      expect(blockEvent.parse(JSON.parse(bytes.toString('utf8')))).toEqual(e);
    }
  });

  it('checks the shape on a sample: a cut sample keeps the log its first transfer names', () => {
    expect(() => encodeBlockEvent(event(40, 'x'))).not.toThrow();
    const broken = { ...event(40, 'x'), chainId: -1 };
    expect(() => encodeBlockEvent(broken)).toThrow(/schema/);
  });
});
