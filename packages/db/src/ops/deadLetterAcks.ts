import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/** When an operator last acknowledged the dead letters (null: never). */
export async function deadLettersAcknowledgedAt(db: Db): Promise<Date | null> {
  const { rows } = await db.query<{ acknowledged_at: Date }>(
    'SELECT acknowledged_at FROM dead_letters_acknowledged',
  );
  return rows[0]?.acknowledged_at ?? null;
}

/** Every dead letter set aside until now has been looked at. */
export async function acknowledgeDeadLetters(db: Db, at: Date = new Date()): Promise<Date> {
  const { rows } = await db.query<{ acknowledged_at: Date }>(
    `INSERT INTO dead_letters_acknowledged (id, acknowledged_at) VALUES (true, $1)
     ON CONFLICT (id) DO UPDATE SET acknowledged_at = greatest(dead_letters_acknowledged.acknowledged_at, $1)
     RETURNING acknowledged_at`,
    [at],
  );
  return rows[0]!.acknowledged_at;
}
