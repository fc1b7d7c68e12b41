import { describe, expect, it } from 'vitest';
import { decodeTransfer } from './decodeTransfer.ts';
import { decodeText } from './readTokenMetadata.ts';
import { TRANSFER_TOPIC0 } from './signatures.ts';

const pad = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}` as `0x${string}`;
const from = `0x${'1'.repeat(40)}` as `0x${string}`;
const to = `0x${'2'.repeat(40)}` as `0x${string}`;
const base = {
  logIndex: 3,
  transactionHash: `0x${'9'.repeat(64)}` as `0x${string}`,
  transactionIndex: 1,
  address: `0x${'a'.repeat(40)}` as `0x${string}`,
};

describe('decodeTransfer', () => {
  it('ignores ERC721 transfers (tokenId indexed), other events and malformed data', () => {
    const data = `0x${'0'.repeat(63)}1` as `0x${string}`;
    expect(
      decodeTransfer({ ...base, topics: [TRANSFER_TOPIC0, pad(from), pad(to), pad(to)], data: '0x' }),
    ).toBeUndefined();
    expect(
      decodeTransfer({ ...base, topics: [`0x${'5'.repeat(64)}`, pad(from), pad(to)], data }),
    ).toBeUndefined();
    expect(
      decodeTransfer({ ...base, topics: [TRANSFER_TOPIC0, pad(from), pad(to)], data: '0x' }),
    ).toBeUndefined();
  });

  it('gives from, to and the exact value by log index, for small and large values', () => {
    for (const value of [0n, 1n, 2n ** 52n - 1n, 2n ** 52n, 2n ** 53n + 1n, 2n ** 256n - 1n]) {
      const log = {
        ...base,
        topics: [TRANSFER_TOPIC0, pad(from), pad(to)],
        data: `0x${value.toString(16).padStart(64, '0')}` as `0x${string}`,
      };
      expect(decodeTransfer(log)).toEqual({ logIndex: 3, from, to, value: value.toString() });
    }
  });

  it('refuses topics that are not zero-padded addresses', () => {
    const data = `0x${'0'.repeat(63)}1` as `0x${string}`;
    const bad = `0x${'1'.repeat(64)}` as `0x${string}`;
    expect(decodeTransfer({ ...base, topics: [TRANSFER_TOPIC0, bad, pad(to)], data })).toBeUndefined();
  });
});

describe('decodeText', () => {
  it('reads ABI strings and bytes32 names, and gives null for nothing', () => {
    const abiString =
      '0x0000000000000000000000000000000000000000000000000000000000000020' +
      '0000000000000000000000000000000000000000000000000000000000000004' +
      '4d4b520000000000000000000000000000000000000000000000000000000000';
    expect(decodeText(abiString as `0x${string}`)).toBe('MKR');
    expect(decodeText(`0x4d616b6572${'0'.repeat(54)}`)).toBe('Maker');
    expect(decodeText('0x')).toBeNull();
    expect(decodeText(null)).toBeNull();
  });

  it('gives null for a number where text was expected (a name() returning uint256 42)', () => {
    expect(decodeText(`0x${'0'.repeat(62)}2a`)).toBeNull();
    expect(decodeText(`0x${'0'.repeat(64)}`)).toBeNull();
  });
});
