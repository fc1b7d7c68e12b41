import { pbkdf2 } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createKafka } from './createKafka.ts';

const codec = () => CompressionCodecs[CompressionTypes.GZIP]();
const payload = Buffer.from('{"block":1}'.repeat(10_000));

describe('inflateOnEventLoop, installed by createKafka', () => {
  createKafka({ brokers: ['127.0.0.1:9'], clientId: 'codec-test' });

  it('inflates what kafkajs and other clients compress: gzip and zlib framing', async () => {
    expect(Buffer.compare(await codec().decompress(gzipSync(payload)), payload)).toBe(0);
    expect(Buffer.compare(await codec().decompress(deflateSync(payload)), payload)).toBe(0);
    const compressed: Buffer = await codec().compress({ buffer: payload });
    expect(Buffer.compare(await codec().decompress(compressed), payload)).toBe(0);
  });

  it('a corrupt batch fails its decompress, as kafkajs expects of a codec', async () => {
    await expect(codec().decompress(Buffer.from('not gzip'))).rejects.toThrow();
  });

  it('does not wait for the thread pool: it finishes before jobs queued there first', async () => {
    // Every thread of libuv's pool (4 unless UV_THREADPOOL_SIZE says otherwise) busy with a slow
    // key derivation; an inflate that went through the pool would finish after at least one of them.
    const threads = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4);
    const order: string[] = [];
    const busy = Array.from(
      { length: threads },
      (_, i) =>
        new Promise<void>((resolve) =>
          pbkdf2('secret', 'salt', 300_000, 32, 'sha256', () => {
            order.push(`pool ${i}`);
            resolve();
          }),
        ),
    );
    await codec()
      .decompress(gzipSync(payload))
      .then(() => order.push('inflate'));
    await Promise.all(busy);
    expect(order[0]).toBe('inflate');
  });
});
