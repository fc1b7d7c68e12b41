import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A COPY text-format cell: hex strings (0x...) are written as bytea; null as \N. */
export type Cell = string | number | bigint | boolean | null | { hex: string };

// Rows per chunk handed to the COPY stream: large enough that the per-write overhead vanishes,
// small enough that PostgreSQL starts parsing while later rows are still being formatted.
const CHUNK_ROWS = 4_000;

/** Streams rows into a table with COPY FROM STDIN (text format); the fastest bulk path into PostgreSQL. */
export async function copyRows(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly Cell[]>,
): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(lines(rows), { objectMode: false }), stream);
}

function* lines(rows: Iterable<readonly Cell[]>): Generator<string> {
  let buf = '';
  let n = 0;
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < row.length; i++) {
      if (i > 0) line += '\t';
      line += cell(row[i]!);
    }
    buf += `${line}\n`;
    if (++n >= CHUNK_ROWS) {
      yield buf;
      buf = '';
      n = 0;
    }
  }
  if (buf.length > 0) yield buf;
}

const NEEDS_ESCAPE = /[\\\n\r\t]/;

function cell(v: Cell): string {
  if (v === null) return '\\N';
  if (typeof v === 'object') return v.hex.startsWith('0x') ? `\\\\x${v.hex.slice(2)}` : `\\\\x${v.hex}`;
  if (typeof v === 'string') return NEEDS_ESCAPE.test(v) ? v.replace(/[\\\n\r\t]/g, escapeCopyChar) : v;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return String(v);
}

function escapeCopyChar(c: string): string {
  return c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t';
}
