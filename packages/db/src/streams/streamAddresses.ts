import type { Pool, PoolClient } from 'pg';
import { bytesToHex, hexToBytes } from '../bytes.ts';

type Db = Pool | PoolClient;

// One statement per 10k addresses: large sets (50k+) go in a few round trips.
const BATCH = 10_000;

/** Adds addresses (lower-case hex); duplicates are ignored. Returns how many were new. */
export async function addStreamAddresses(
  db: Db,
  streamId: string,
  addresses: readonly string[],
): Promise<number> {
  let added = 0;
  for (let i = 0; i < addresses.length; i += BATCH) {
    const chunk = addresses.slice(i, i + BATCH).map(hexToBytes);
    const res = await db.query(
      `INSERT INTO stream_addresses (stream_id, address) SELECT $1, a FROM unnest($2::bytea[]) AS a
       ON CONFLICT DO NOTHING`,
      [streamId, chunk],
    );
    added += res.rowCount ?? 0;
  }
  return added;
}

export async function removeStreamAddresses(
  db: Db,
  streamId: string,
  addresses: readonly string[],
): Promise<number> {
  let removed = 0;
  for (let i = 0; i < addresses.length; i += BATCH) {
    const chunk = addresses.slice(i, i + BATCH).map(hexToBytes);
    const res = await db.query(
      'DELETE FROM stream_addresses WHERE stream_id = $1 AND address = ANY($2::bytea[])',
      [streamId, chunk],
    );
    removed += res.rowCount ?? 0;
  }
  return removed;
}

/** Replaces the whole set; call inside a transaction. */
export async function replaceStreamAddresses(
  db: Db,
  streamId: string,
  addresses: readonly string[],
): Promise<void> {
  await db.query('DELETE FROM stream_addresses WHERE stream_id = $1', [streamId]);
  await addStreamAddresses(db, streamId, addresses);
}

/** Keyset page ordered by address. */
export async function listStreamAddresses(
  db: Db,
  streamId: string,
  limit: number,
  after?: string,
): Promise<{ addresses: string[]; total: number }> {
  const params: unknown[] = [streamId, limit];
  let where = 'stream_id = $1';
  if (after) {
    params.push(hexToBytes(after));
    where += ' AND address > $3';
  }
  const [page, count] = await Promise.all([
    db.query<{ address: Buffer }>(
      `SELECT address FROM stream_addresses WHERE ${where} ORDER BY address LIMIT $2`,
      params,
    ),
    db.query<{ n: string }>('SELECT count(*) AS n FROM stream_addresses WHERE stream_id = $1', [streamId]),
  ]);
  return { addresses: page.rows.map((r) => bytesToHex(r.address)), total: Number(count.rows[0]?.n ?? 0) };
}

/** Every address of the given streams (the matcher's start-up load), as lower-case hex. */
export async function loadStreamAddresses(
  db: Db,
  streamIds: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(streamIds.map((id) => [id, []]));
  if (streamIds.length === 0) return out;
  const { rows } = await db.query<{ stream_id: string; address: Buffer }>(
    'SELECT stream_id, address FROM stream_addresses WHERE stream_id = ANY($1::uuid[])',
    [streamIds],
  );
  for (const r of rows) out.get(r.stream_id)?.push(bytesToHex(r.address));
  return out;
}
