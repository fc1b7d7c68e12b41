import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/** The first block whose timestamp is at or after `date` (blocks_by_time); null when none is. */
export async function findFirstBlockAtOrAfter(
  db: Queryable,
  chainId: number,
  date: Date,
): Promise<number | null> {
  const { rows } = await db.query<{ number: string }>(
    `SELECT number FROM blocks WHERE chain_id = $1 AND timestamp >= $2
      ORDER BY timestamp ASC, number ASC LIMIT 1`,
    [chainId, date],
  );
  return rows[0] ? Number(rows[0].number) : null;
}

/** The last block whose timestamp is at or before `date` (blocks_by_time); null when none is. */
export async function findLastBlockAtOrBefore(
  db: Queryable,
  chainId: number,
  date: Date,
): Promise<number | null> {
  const { rows } = await db.query<{ number: string }>(
    `SELECT number FROM blocks WHERE chain_id = $1 AND timestamp <= $2
      ORDER BY timestamp DESC, number DESC LIMIT 1`,
    [chainId, date],
  );
  return rows[0] ? Number(rows[0].number) : null;
}
