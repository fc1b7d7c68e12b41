import { promisify } from 'node:util';
import { gzip, unzipSync } from 'node:zlib';
import kafkajs from 'kafkajs';

// kafkajs is CommonJS, and Node's named-export detection does not see CompressionCodecs.
const { CompressionCodecs, CompressionTypes } = kafkajs;
const gzipAsync = promisify(gzip);

/**
 * Makes kafkajs inflate gzip record batches on the event loop instead of in libuv's thread pool.
 *
 * kafkajs' own codec calls the asynchronous `zlib.unzip`, whose work runs on the pool's threads; each
 * of them allocates from its own glibc arena, and freeing a batch's buffers there fragments those
 * arenas: a consumer's RSS creeps up outside the V8 heap for hours (the soak measured the projector
 * at +4.4 MiB/h with its heap flat; Node's zlib documentation warns of the same). Inflating a batch is
 * fast (hundreds of MB/s, a batch is at most a few MiB), so the consumers do it in line, on the one
 * arena that is reused. Compressing stays asynchronous: the follower's RSS is flat with it, and a
 * 4 MiB produce request would hold its loop for tens of milliseconds.
 *
 * kafkajs keeps one codec table per process; createKafka calls this, so every client has it.
 */
export function inflateOnEventLoop(): void {
  CompressionCodecs[CompressionTypes.GZIP] = () => ({
    compress: async (encoder: { buffer: Buffer }) => gzipAsync(encoder.buffer),
    // Async for kafkajs' interface; the work is synchronous (unzip, as kafkajs': gzip or zlib framing).
    decompress: async (buffer: Buffer) => unzipSync(buffer),
  });
}
