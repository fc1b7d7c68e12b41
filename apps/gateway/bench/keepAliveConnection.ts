// One HTTP/1.1 keep-alive connection that sends GET requests one at a time and reads each response
// to its end (Content-Length or chunked bodies). Deliberately minimal: the load generator shares the
// machine's cores with the gateway and PostgreSQL, and a general client (undici) costs it about
// three times the CPU per request of this one, which the measured service would then lack.
// Socket reads land in one buffer per connection (net's `onread`), and of each body only its first
// PREFIX_BYTES are kept (the page's `cursor` comes before its records): a body is never allocated or
// copied whole, so the generator's garbage collector does not pause it for the ~30 MB/s of pages it
// reads, which showed as extra latency on whatever was in flight.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface RawResponse {
  status: number;
  /** The body's first bytes (at most PREFIX_BYTES). */
  body: Buffer;
  /** The body's whole length. */
  bytes: number;
}

/** How much of each body is kept. */
const PREFIX_BYTES = 4096;
const READ_BUFFER_BYTES = 64 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** A parsed head: how the body is framed. */
interface Head {
  status: number;
  /** Content-Length, or -1 for a chunked body. */
  length: number;
  close: boolean;
}

function parseHead(text: string): Head {
  const status = Number(text.slice(9, 12));
  if (!text.startsWith('HTTP/1.') || !Number.isInteger(status))
    throw new Error(`bad status line: ${text.slice(0, 40)}`);
  let length = 0;
  let chunked = false;
  let close = false;
  for (const line of text.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') chunked = value.includes('chunked');
    else if (name === 'connection') close = value === 'close';
  }
  return { status, length: chunked ? -1 : length, close };
}

/** Where a complete chunked body that starts at `start` ends, and its length; null while more bytes are due. */
function chunkedEnd(buf: Buffer, start: number): { end: number; length: number } | null {
  let at = start;
  let length = 0;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size');
    const dataStart = lineEnd + 2;
    if (size === 0) {
      // Last chunk; no trailers are sent by the gateway, so the message ends with one more CRLF.
      return buf.length < dataStart + 2 ? null : { end: dataStart + 2, length };
    }
    if (buf.length < dataStart + size + 2) return null;
    length += size;
    at = dataStart + size + 2;
  }
}

/** The data of a complete chunked body (only bodies the gateway sends chunked, which it rarely does). */
function dechunk(buf: Buffer, start: number): Buffer {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    const size = Number.parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

export class KeepAliveConnection {
  private readonly socket: Socket;
  /** Bytes of the current response not yet framed: its head, or all of a chunked one (copied). */
  private pendingBytes: Buffer = Buffer.alloc(0);
  private head: Head | null = null;
  /** Content-Length framing: body bytes still to come, and the kept prefix. */
  private remaining = 0;
  private readonly prefix = Buffer.alloc(PREFIX_BYTES);
  private prefixLength = 0;
  private pending: { resolve(r: RawResponse): void; reject(e: Error): void } | null = null;
  /** False once the socket closed or failed: the pool then drops it. */
  usable = true;
  /** performance.now() when its last response ended (or it was opened). */
  idleSince = performance.now();

  constructor(host: string, port: number) {
    this.socket = connect({
      port,
      host,
      onread: {
        buffer: Buffer.alloc(READ_BUFFER_BYTES),
        callback: (n: number, buf: Uint8Array) => {
          this.onData(Buffer.from(buf.buffer, buf.byteOffset, n));
          return true;
        },
      },
    });
    this.socket.setNoDelay(true);
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  get(path: string, headerLines: string): Promise<RawResponse> {
    if (this.pending) throw new Error('one request at a time');
    if (!this.usable) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\n${headerLines}\r\n`);
    });
  }

  destroy(): void {
    this.usable = false;
    this.socket.destroy();
  }

  private fail(err: Error): void {
    this.usable = false;
    const p = this.pending;
    this.pending = null;
    p?.reject(err);
  }

  /** `chunk` is a view of the shared read buffer: valid only during this call. */
  private onData(chunk: Buffer): void {
    try {
      let data = chunk;
      while (data.length > 0 && this.usable) data = this.consume(data);
    } catch (err) {
      this.destroy();
      this.fail(err as Error);
    }
  }

  /** Takes what it can of `data` for the current response; returns the rest. */
  private consume(data: Buffer): Buffer {
    if (this.head !== null && this.head.length >= 0) {
      const take = Math.min(this.remaining, data.length);
      this.keep(data.subarray(0, take));
      this.remaining -= take;
      if (this.remaining === 0) this.complete(this.head, this.head.length);
      return data.subarray(take);
    }
    // A head still being read, or a chunked body: copied until it is complete.
    const buf = this.pendingBytes.length === 0 ? Buffer.from(data) : Buffer.concat([this.pendingBytes, data]);
    if (this.head === null) {
      const end = buf.indexOf(HEADER_END);
      if (end < 0) {
        this.pendingBytes = buf;
        return Buffer.alloc(0);
      }
      this.head = parseHead(buf.toString('latin1', 0, end));
      this.pendingBytes = Buffer.alloc(0);
      if (this.head.length >= 0) {
        this.remaining = this.head.length;
        this.prefixLength = 0;
        if (this.remaining === 0) this.complete(this.head, 0);
        return buf.subarray(end + 4);
      }
      // Chunked: the rest goes round again, into the copying path below.
      return buf.subarray(end + 4);
    }
    const whole = chunkedEnd(buf, 0);
    if (whole === null) {
      this.pendingBytes = buf;
      return Buffer.alloc(0);
    }
    const body = dechunk(buf, 0);
    this.pendingBytes = Buffer.alloc(0);
    this.prefixLength = 0;
    this.keep(body);
    this.complete(this.head, whole.length);
    return buf.subarray(whole.end);
  }

  private keep(bytes: Buffer): void {
    const room = PREFIX_BYTES - this.prefixLength;
    if (room <= 0) return;
    const n = Math.min(room, bytes.length);
    bytes.copy(this.prefix, this.prefixLength, 0, n);
    this.prefixLength += n;
  }

  private complete(head: Head, bytes: number): void {
    this.head = null;
    this.idleSince = performance.now();
    if (head.close) this.destroy();
    const p = this.pending;
    this.pending = null;
    p?.resolve({ status: head.status, body: Buffer.from(this.prefix.subarray(0, this.prefixLength)), bytes });
  }
}
