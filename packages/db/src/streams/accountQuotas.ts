import type { PoolClient } from 'pg';

/**
 * Serialises the changes of one account's streams and addresses until the transaction ends, so
 * that two concurrent calls cannot both pass a quota check that only one of them fits.
 */
export async function lockAccount(client: PoolClient, accountId: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`account-quota:${accountId}`]);
}

export async function countAccountStreams(client: PoolClient, accountId: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'SELECT count(*) AS n FROM streams WHERE account_id = $1',
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Addresses of one stream, and of all the account's streams (what the matchers hold for it). */
export async function countAddresses(
  client: PoolClient,
  accountId: string,
  streamId: string,
): Promise<{ stream: number; account: number }> {
  const { rows } = await client.query<{ stream: string; account: string }>(
    `SELECT count(*) FILTER (WHERE a.stream_id = $2) AS stream, count(*) AS account
       FROM stream_addresses a JOIN streams s ON s.id = a.stream_id
      WHERE s.account_id = $1`,
    [accountId, streamId],
  );
  return { stream: Number(rows[0]?.stream ?? 0), account: Number(rows[0]?.account ?? 0) };
}
