import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from '../createPool.ts';
import { type BinaryCopyWriter, LastHexField, copyBinary, encodeFields } from './binaryCopy.ts';

// Every value goes through PostgreSQL's binary receive functions and is read back as text: the
// writer must produce what PostgreSQL itself makes of the same value.
const URL = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
let pool: Pool;

beforeAll(() => {
  pool = createPool({ connectionString: URL, max: 1 });
});
afterAll(async () => {
  await pool.end();
});

const COLUMNS = ['i2', 'i4', 'i8', 'b', 'h', 't', 'n', 'x', 'f'] as const;
interface Row {
  i2: number | null;
  i4: number | null;
  i8: number | null;
  b: string | null;
  h: string | null;
  t: number | null;
  n: string | bigint | null;
  x: string | null;
  f: boolean | null;
}

async function roundTrip(rows: Row[], writeRaw = false, hexRepeated = false) {
  const lastH = new LastHexField();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`CREATE TEMP TABLE bin_copy (
      i2 smallint, i4 integer, i8 bigint, b bytea, h bytea, t timestamptz, n numeric(78, 0), x text, f boolean
    ) ON COMMIT DROP`);
    await copyBinary(client, 'bin_copy', COLUMNS, function* (w: BinaryCopyWriter) {
      for (const r of rows) {
        w.row(COLUMNS.length);
        if (r.i2 === null) w.null();
        else w.int2(r.i2);
        if (r.i4 === null) w.null();
        else w.int4(r.i4);
        if (r.i8 === null) w.null();
        else if (writeRaw) w.raw(encodeFields((f) => f.int8(r.i8 as number)));
        else w.int8(r.i8);
        if (r.b === null) w.null();
        else w.bytes(Buffer.from(r.b, 'hex'));
        if (r.h === null) w.null();
        else if (hexRepeated) w.hexRepeated(r.h, lastH);
        else w.hex(r.h);
        if (r.t === null) w.null();
        else w.timestampSeconds(r.t);
        if (r.n === null) w.null();
        else w.numeric(r.n);
        if (r.x === null) w.null();
        else w.text(r.x);
        if (r.f === null) w.null();
        else w.bool(r.f);
        yield;
      }
    });
    const { rows: back } = await client.query(
      `SELECT i2, i4, i8::text AS i8, encode(b, 'hex') AS b, encode(h, 'hex') AS h,
              extract(epoch FROM t)::bigint::text AS t, n::text AS n, x, f FROM bin_copy`,
    );
    await client.query('COMMIT');
    return back;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

const empty: Row = { i2: null, i4: null, i8: null, b: null, h: null, t: null, n: null, x: null, f: null };

describe('BinaryCopyWriter', () => {
  it('writes integers, bytes, hex, times, text, booleans and NULL as PostgreSQL reads them', async () => {
    const rows: Row[] = [
      {
        i2: -32768,
        i4: 2_147_483_647,
        i8: Number.MAX_SAFE_INTEGER,
        b: '00ff10',
        h: `0x${'ab'.repeat(32)}`,
        t: 1_700_000_000,
        n: '1',
        x: 'tab\tnew\nline \\ émoji 🦊',
        f: true,
      },
      { i2: 0, i4: -1, i8: -Number.MAX_SAFE_INTEGER, b: '', h: '0x', t: 0, n: '0', x: '', f: false },
      // Before PostgreSQL's epoch (2000): negative microseconds.
      { ...empty, t: 946_684_799, h: 'deadbeef' },
      empty,
    ];
    expect(await roundTrip(rows)).toEqual([
      {
        i2: -32768,
        i4: 2_147_483_647,
        i8: String(Number.MAX_SAFE_INTEGER),
        b: '00ff10',
        h: 'ab'.repeat(32),
        t: '1700000000',
        n: '1',
        x: 'tab\tnew\nline \\ émoji 🦊',
        f: true,
      },
      { i2: 0, i4: -1, i8: String(-Number.MAX_SAFE_INTEGER), b: '', h: '', t: '0', n: '0', x: '', f: false },
      { i2: null, i4: null, i8: null, b: null, h: 'deadbeef', t: '946684799', n: null, x: null, f: null },
      { i2: null, i4: null, i8: null, b: null, h: null, t: null, n: null, x: null, f: null },
    ]);
  });

  it('writes numeric(78,0) exactly: every digit-group boundary, trailing zero groups, signs, 2^256 - 1', async () => {
    const values: (string | bigint)[] = [
      '0',
      '00042',
      '9999',
      '10000',
      '10001',
      '99990000',
      '100000000',
      '1000000000000',
      '123456789012345678901234567890',
      '-1',
      '-10000',
      (2n ** 256n - 1n).toString(),
      -(2n ** 255n),
      10n ** 77n,
    ];
    const back = await roundTrip(values.map((n) => ({ ...empty, n })));
    expect(back.map((r) => r.n)).toEqual(values.map((v) => BigInt(v).toString()));
  });

  it('refuses what is not an integer or not hex, and keeps chunks across many rows', async () => {
    await expect(roundTrip([{ ...empty, n: '1.5' }])).rejects.toThrow(/not an integer/);
    await expect(roundTrip([{ ...empty, h: '0xzz' }])).rejects.toThrow(/not hex/);
    // Well over one 1 MiB chunk, with pre-encoded fields.
    const many = Array.from({ length: 30_000 }, (_, i) => ({ ...empty, i8: i, h: `0x${'cd'.repeat(32)}` }));
    const back = await roundTrip(many, true);
    expect(back).toHaveLength(30_000);
    expect(back[29_999]).toMatchObject({ i8: '29999', h: 'cd'.repeat(32) });
  });

  it('copies a repeated hex field from the previous row exactly as hex() writes it', async () => {
    const a = `0x${'ab'.repeat(32)}`;
    const b = `0x${'01'.repeat(20)}`;
    const values = [a, a, b, b, a, 'ff00', 'ff00', '0x', b, a, a];
    const rows = values.map((h) => ({ ...empty, h }));
    expect(await roundTrip(rows, false, true)).toEqual(await roundTrip(rows));
    await expect(
      roundTrip(
        [
          { ...empty, h: a },
          { ...empty, h: '0xzz' },
        ],
        false,
        true,
      ),
    ).rejects.toThrow(/not hex/);
    // A refused value is not remembered: the same string is refused again.
    const last = new LastHexField();
    expect(() => last.set('0xzz')).toThrow(/not hex/);
    expect(() => last.set('0xzz')).toThrow(/not hex/);
    expect(last.hex).toBe('');
  });
});
