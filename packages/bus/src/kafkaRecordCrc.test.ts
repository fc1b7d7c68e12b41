// kafkajs is patched (patches/kafkajs@2.2.4.patch): its record-batch checksum is computed eight
// bytes at a time. The broker rejects a batch whose checksum is wrong, and the consumer tests
// send real batches; this holds the patched function equal to the plain byte-wise CRC32-C on
// every length and alignment a batch can have.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const crc32C = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (b: Buffer) => number;

function referenceCrc32C(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe("kafkajs's record-batch CRC32-C", () => {
  it('gives the check value of the CRC-32C standard', () => {
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32C(Buffer.alloc(0))).toBe(0);
  });

  it('equals the byte-wise CRC32-C for every length and offset', () => {
    const pool = randomBytes(70_000);
    for (let offset = 0; offset < 8; offset++) {
      for (const length of [1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4093, 65_537]) {
        const slice = pool.subarray(offset, offset + length);
        expect(crc32C(slice), `offset ${offset}, length ${length}`).toBe(referenceCrc32C(slice));
      }
    }
  });
});
