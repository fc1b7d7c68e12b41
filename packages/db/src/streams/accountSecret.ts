import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/** The account's webhook signing secret (GET /settings). */
export async function getWebhookSecret(db: Db, accountId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ webhook_secret: string }>(
    'SELECT webhook_secret FROM accounts WHERE id = $1',
    [accountId],
  );
  return rows[0]?.webhook_secret;
}

export async function setWebhookSecret(db: Db, accountId: string, secret: string): Promise<void> {
  await db.query('UPDATE accounts SET webhook_secret = $2 WHERE id = $1', [accountId, secret]);
}
