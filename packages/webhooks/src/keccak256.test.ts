import { randomBytes } from 'node:crypto';
import { keccak256, stringToBytes } from 'viem';
import { describe, expect, it } from 'vitest';
import { keccak256Bytes, keccak256Utf8 } from './keccak256.ts';

describe('keccak256', () => {
  it('gives the known digests (Ethereum Keccak-256, not SHA3-256)', () => {
    expect(keccak256Utf8('')).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256Utf8('Transfer(address,address,uint256)')).toBe(
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
  });

  it('agrees with viem on every length around the 136-byte block boundaries', () => {
    for (let length = 0; length <= 3 * 136 + 1; length++) {
      const bytes = randomBytes(length);
      expect(keccak256Bytes(bytes)).toBe(keccak256(bytes));
    }
  });

  it('hashes the UTF-8 bytes of multi-byte text and long bodies', () => {
    for (const text of ['héllo wörld 🎉', 'é'.repeat(68), `{"logs":[${'"x",'.repeat(5_000)}"y"]}secret`]) {
      expect(keccak256Utf8(text)).toBe(keccak256(stringToBytes(text)));
    }
  });
});
