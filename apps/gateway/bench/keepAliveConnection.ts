// One HTTP/1.1 keep-alive connection that sends GET requests one at a time and reads each response
// whole (Content-Length or chunked bodies). Deliberately minimal: the load generator shares the
// machine's cores with the gateway and PostgreSQL, and a general client (undici) costs it about
// three times the CPU per request of this one, which the measured service would then lack.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  body: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** A parsed head: where the body starts and how it is framed. */
interface Head {
  status: number;
  bodyStart: number;
  /** Content-Length, or -1 for a chunked body. */
  length: number;
  close: boolean;
}

function parseHead(buf: Buffer, end: number): Head {
  const text = buf.toString('latin1', 0, end);
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
  return { status, bodyStart: end + 4, length: chunked ? -1 : length, close };
}

/** The body of a complete chunked message starting at `start`, or null while more bytes are due. */
function dechunk(buf: Buffer, start: number): { body: Buffer; end: number } | null {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size');
    const dataStart = lineEnd + 2;
    if (size === 0) {
      // Last chunk; no trailers are sent by the gateway, so the message ends with one more CRLF.
      if (buf.length < dataStart + 2) return null;
      return { body: Buffer.concat(parts), end: dataStart + 2 };
    }
    if (buf.length < dataStart + size + 2) return null;
    parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

export class KeepAliveConnection {
  private readonly socket: Socket;
  private buf: Buffer = Buffer.alloc(0);
  private head: Head | null = null;
  private pending: { resolve(r: RawResponse): void; reject(e: Error): void } | null = null;
  /** False once the socket closed or failed: the pool then drops it. */
  usable = true;

  constructor(host: string, port: number) {
    this.socket = connect(port, host);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
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

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    try {
      if (this.head === null) {
        const end = this.buf.indexOf(HEADER_END);
        if (end < 0) return;
        this.head = parseHead(this.buf, end);
      }
      const head = this.head;
      let body: Buffer;
      let end: number;
      if (head.length >= 0) {
        end = head.bodyStart + head.length;
        if (this.buf.length < end) return;
        body = this.buf.subarray(head.bodyStart, end);
      } else {
        const whole = dechunk(this.buf, head.bodyStart);
        if (whole === null) return;
        ({ body, end } = whole);
      }
      this.buf = this.buf.subarray(end);
      this.head = null;
      if (head.close) this.destroy();
      const p = this.pending;
      this.pending = null;
      p?.resolve({ status: head.status, body });
    } catch (err) {
      this.destroy();
      this.fail(err as Error);
    }
  }
}
