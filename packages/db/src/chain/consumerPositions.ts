import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/** Chain id -> the highest block whose `confirmed` event the group finished (migration 069). */
export async function loadConsumerPositions(db: Db, groupId: string): Promise<Map<number, number>> {
  const { rows } = await db.query<{ chain_id: string; confirmed_through: string }>(
    'SELECT chain_id, confirmed_through FROM consumer_positions WHERE group_id = $1',
    [groupId],
  );
  return new Map(rows.map((r) => [Number(r.chain_id), Number(r.confirmed_through)]));
}

/** Moves the group's positions forward (never back: an older write arriving late changes nothing). */
export async function saveConsumerPositions(
  db: Db,
  groupId: string,
  positions: Map<number, number>,
): Promise<void> {
  if (positions.size === 0) return;
  await db.query(
    `INSERT INTO consumer_positions (group_id, chain_id, confirmed_through)
     SELECT $1, c, b FROM unnest($2::bigint[], $3::bigint[]) AS t(c, b)
     ON CONFLICT (group_id, chain_id) DO UPDATE
       SET confirmed_through = greatest(consumer_positions.confirmed_through, EXCLUDED.confirmed_through),
           updated_at = now()`,
    [groupId, [...positions.keys()], [...positions.values()]],
  );
}

/** Every followed chain and its follower's checkpoint (the last block published). */
export async function loadFollowerCheckpoints(db: Db): Promise<Map<number, number>> {
  const { rows } = await db.query<{ chain_id: string; block_number: string }>(
    'SELECT chain_id, block_number FROM follower_checkpoints',
  );
  return new Map(rows.map((r) => [Number(r.chain_id), Number(r.block_number)]));
}
