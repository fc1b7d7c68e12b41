import { describe, expect, it } from 'vitest';
import { DecodeError, blockEventCodec } from './codec.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;

describe('blockEventCodec', () => {
  it('round-trips a block event and keeps uint256 values exact', () => {
    const token = `0x${'a'.repeat(40)}` as `0x${string}`;
    const event = {
      type: 'confirmed' as const,
      v: 2 as const,
      chainId: 31337,
      block: { number: 7, hash: h(7), parentHash: h(6), timestamp: 1_700_000_000 },
      transactions: [],
      logs: [
        { logIndex: 0, transactionHash: h(9), transactionIndex: 0, address: token, data: h(1), topics: [] },
      ],
      internalTransactions: [],
      transfers: [
        {
          logIndex: 0,
          from: `0x${'0'.repeat(40)}` as `0x${string}`,
          to: `0x${'b'.repeat(40)}` as `0x${string}`,
          value: (2n ** 255n + 1n).toString(),
        },
      ],
      tokens: [],
      tokenInfo: [],
      accounts: [],
      hasTransactions: false,
      hasInternalTransactions: false,
    };
    expect(blockEventCodec.decode(blockEventCodec.encode(event))).toEqual(event);
  });

  it('refuses messages that are not JSON or do not match the schema', () => {
    expect(() => blockEventCodec.decode(Buffer.from('{'))).toThrow(DecodeError);
    expect(() => blockEventCodec.decode(Buffer.from('{"type":"new","v":2}'))).toThrow(/schema/);
    expect(() => blockEventCodec.decode(null)).toThrow(DecodeError);
  });
});
