import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A COPY text-format cell: hex strings (0x...) are written as bytea; null as \N. */
export type Cell = string | number | bigint | boolean | null | { hex: string };

const CHUNK_ROWS = 2_000;

/** Streams rows into a table with COPY FROM STDIN (text format); the fastest bulk path into PostgreSQL. */
export async function copyRows(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly Cell[]>,
): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(lines(rows)), stream);
}

function* lines(rows: Iterable<readonly Cell[]>): Generator<string> {
  let buf: string[] = [];
  for (const row of rows) {
    buf.push(`${row.map(cell).join('\t')}\n`);
    if (buf.length >= CHUNK_ROWS) {
      yield buf.join('');
      buf = [];
    }
  }
  if (buf.length > 0) yield buf.join('');
}

function cell(v: Cell): string {
  if (v === null) return '\\N';
  if (typeof v === 'object') return `\\\\x${v.hex.startsWith('0x') ? v.hex.slice(2) : v.hex}`;
  if (typeof v === 'string') return v.replace(/[\\\n\r\t]/g, escapeCopyChar);
  return String(v);
}

function escapeCopyChar(c: string): string {
  return c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t';
}
