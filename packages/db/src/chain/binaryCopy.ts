import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

// PostgreSQL's binary COPY format: a header, then per row a field count and per field its byte
// length (-1 for NULL) and its binary value (network byte order), then a trailer. PostgreSQL
// reads it with each type's receive function: no text parsing of timestamps, numerics or hex.
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const CHUNK_BYTES = 1 << 20;
/** 2000-01-01T00:00:00Z, PostgreSQL's timestamp epoch, in Unix seconds. */
const PG_EPOCH_SECONDS = 946_684_800;
const TWO_32 = 2 ** 32;

/**
 * Builds binary COPY data in chunks of about 1 MiB. Values are written as PostgreSQL's binary
 * receive functions expect them; callers write exactly the fields of each row, in column order.
 */
export class BinaryCopyWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly done: Buffer[] = [];

  /** `header: false` encodes bare fields (for `encodeFields`). */
  constructor(opts: { header?: boolean; chunkBytes?: number } = {}) {
    this.buf = Buffer.allocUnsafe(opts.chunkBytes ?? CHUNK_BYTES);
    if (opts.header === false) return;
    SIGNATURE.copy(this.buf, 0);
    this.buf.writeInt32BE(0, 11); // flags
    this.buf.writeInt32BE(0, 15); // header extension length
    this.pos = 19;
  }

  /** Everything written so far as one buffer (for `encodeFields`). */
  written(): Buffer {
    return Buffer.concat([...this.done, this.buf.subarray(0, this.pos)]);
  }

  /** Chunks completed so far (taken: later calls start new ones). */
  take(): Buffer[] {
    return this.done.splice(0);
  }

  /** Ends the data: the trailer, and every remaining chunk. */
  finish(): Buffer[] {
    this.room(2);
    this.buf.writeInt16BE(-1, this.pos);
    this.pos += 2;
    this.done.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.alloc(0);
    this.pos = 0;
    return this.take();
  }

  /** Bytes completed and waiting in take(). */
  pendingBytes(): number {
    let n = 0;
    for (const b of this.done) n += b.length;
    return n;
  }

  row(fields: number): this {
    // A row never straddles chunks only for small rows; large fields make room on their own.
    this.room(2);
    this.buf.writeInt16BE(fields, this.pos);
    this.pos += 2;
    return this;
  }

  null(): this {
    this.room(4);
    this.buf.writeInt32BE(-1, this.pos);
    this.pos += 4;
    return this;
  }

  bool(v: boolean): this {
    this.room(5);
    this.buf.writeInt32BE(1, this.pos);
    this.buf[this.pos + 4] = v ? 1 : 0;
    this.pos += 5;
    return this;
  }

  int2(v: number): this {
    this.room(6);
    this.buf.writeInt32BE(2, this.pos);
    this.buf.writeInt16BE(v, this.pos + 4);
    this.pos += 6;
    return this;
  }

  int4(v: number): this {
    this.room(8);
    this.buf.writeInt32BE(4, this.pos);
    this.buf.writeInt32BE(v, this.pos + 4);
    this.pos += 8;
    return this;
  }

  /** bigint column from a safe integer. */
  int8(v: number): this {
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a safe integer: ${v}`);
    this.room(12);
    this.buf.writeInt32BE(8, this.pos);
    writeInt64(this.buf, this.pos + 4, v);
    this.pos += 12;
    return this;
  }

  /** timestamptz from Unix seconds. */
  timestampSeconds(seconds: number): this {
    this.room(12);
    this.buf.writeInt32BE(8, this.pos);
    writeInt64(this.buf, this.pos + 4, (seconds - PG_EPOCH_SECONDS) * 1_000_000);
    this.pos += 12;
    return this;
  }

  /** bytea from 0x-prefixed (or bare) hex of even length; the caller has validated it. */
  hex(hex: string): this {
    this.room(4 + hexBytes(hex));
    this.pos = writeHexField(this.buf, this.pos, hex);
    return this;
  }

  /**
   * Like hex(), for a column whose value often repeats from one row to the next (a log's
   * transaction hash and contract, a transfer's token): when `hex` is the string `last` holds, its
   * encoding there is copied instead of decoded again.
   */
  hexRepeated(hex: string, last: LastHexField): this {
    if (hex !== last.hex) last.set(hex);
    return this.raw(last.field);
  }

  /** Fields already encoded (length-prefixed values, e.g. from `encodeFields`), appended verbatim. */
  raw(encoded: Uint8Array): this {
    this.room(encoded.length);
    this.buf.set(encoded, this.pos);
    this.pos += encoded.length;
    return this;
  }

  /** bytea from raw bytes. */
  bytes(b: Uint8Array): this {
    this.room(4 + b.length);
    this.buf.writeInt32BE(b.length, this.pos);
    this.buf.set(b, this.pos + 4);
    this.pos += 4 + b.length;
    return this;
  }

  /** text (UTF-8). */
  text(s: string): this {
    const bytes = Buffer.byteLength(s);
    this.room(4 + bytes);
    this.buf.writeInt32BE(bytes, this.pos);
    this.buf.write(s, this.pos + 4, bytes, 'utf8');
    this.pos += 4 + bytes;
    return this;
  }

  /**
   * numeric from an integer in decimal digits (optionally negative) or a bigint: base-10000
   * digit groups, weight = groups before the decimal point - 1, scale 0.
   */
  numeric(value: string | bigint | number): this {
    let s = typeof value === 'string' ? value : value.toString();
    let sign = 0;
    if (s.charCodeAt(0) === 45 /* - */) {
      sign = 0x4000;
      s = s.slice(1);
    }
    let lead = 0;
    while (lead < s.length - 1 && s.charCodeAt(lead) === 48) lead++;
    if (lead > 0) s = s.slice(lead);
    if (!/^[0-9]+$/.test(s)) throw new TypeError(`not an integer: ${String(value).slice(0, 90)}`);
    if (s === '0') {
      this.room(12);
      this.buf.writeInt32BE(8, this.pos);
      this.buf.writeInt16BE(0, this.pos + 4); // ndigits
      this.buf.writeInt16BE(0, this.pos + 6); // weight
      this.buf.writeInt16BE(0, this.pos + 8); // sign
      this.buf.writeInt16BE(0, this.pos + 10); // dscale
      this.pos += 12;
      return this;
    }
    const groups = Math.ceil(s.length / 4);
    const first = s.length - (groups - 1) * 4;
    // Trailing zero groups are implied by the weight.
    let ndigits = groups;
    while (ndigits > 1 && s.endsWith('0000', first + (ndigits - 1) * 4)) ndigits--;
    const size = 8 + 2 * ndigits;
    this.room(4 + size);
    let p = this.pos;
    this.buf.writeInt32BE(size, p);
    this.buf.writeInt16BE(ndigits, p + 4);
    this.buf.writeInt16BE(groups - 1, p + 6);
    this.buf.writeInt16BE(sign, p + 8);
    this.buf.writeInt16BE(0, p + 10);
    p += 12;
    for (let g = 0; g < ndigits; g++) {
      const end = first + g * 4;
      const begin = g === 0 ? 0 : end - 4;
      let d = 0;
      for (let i = begin; i < end; i++) d = d * 10 + (s.charCodeAt(i) - 48);
      this.buf.writeInt16BE(d, p);
      p += 2;
    }
    this.pos = p;
    return this;
  }

  private room(bytes: number) {
    if (this.pos + bytes <= this.buf.length) return;
    if (this.pos > 0) this.done.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
    this.pos = 0;
  }
}

/** The last value written to one bytea column by hexRepeated, with its encoded field. */
export class LastHexField {
  hex = '';
  field: Buffer = Buffer.alloc(0);

  set(hex: string): void {
    const size = 4 + hexBytes(hex);
    if (this.field.length !== size) this.field = Buffer.allocUnsafe(size);
    this.hex = '';
    writeHexField(this.field, 0, hex);
    this.hex = hex;
  }
}

/** Bytes of a 0x-prefixed (or bare) hex string of even length. */
function hexBytes(hex: string): number {
  return (hex.length - (hex.charCodeAt(1) === 120 /* x */ ? 2 : 0)) >>> 1;
}

/** A bytea field (length, then the bytes of `hex`) at `at` in `buf`, which has room; returns the end. */
function writeHexField(buf: Buffer, at: number, hex: string): number {
  const bytes = hexBytes(hex);
  buf.writeInt32BE(bytes, at);
  const written = buf.write(hex.charCodeAt(1) === 120 ? hex.slice(2) : hex, at + 4, bytes, 'hex');
  if (written !== bytes) throw new TypeError(`not hex: ${hex.slice(0, 80)}`);
  return at + 4 + bytes;
}

/** Encodes a few fields once, for rows that repeat them (`raw`). */
export function encodeFields(write: (w: BinaryCopyWriter) => void): Buffer {
  const w = new BinaryCopyWriter({ header: false, chunkBytes: 256 });
  write(w);
  return w.written();
}

function writeInt64(buf: Buffer, at: number, v: number) {
  const hi = Math.floor(v / TWO_32);
  buf.writeInt32BE(hi, at);
  buf.writeUInt32BE(v - hi * TWO_32, at + 4);
}

/**
 * COPY ... FROM STDIN (FORMAT binary) of the rows a generator writes: `fill` is called with the
 * writer and yields after every few rows, so that chunks stream to PostgreSQL while later rows are
 * still being encoded.
 */
export async function copyBinary(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  fill: (w: BinaryCopyWriter) => Iterable<unknown>,
): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`));
  await pipeline(Readable.from(chunks(fill), { objectMode: false }), stream);
}

function* chunks(fill: (w: BinaryCopyWriter) => Iterable<unknown>): Generator<Buffer> {
  const w = new BinaryCopyWriter();
  for (const _ of fill(w)) {
    if (w.pendingBytes() > 0) yield* w.take();
  }
  yield* w.finish();
}
