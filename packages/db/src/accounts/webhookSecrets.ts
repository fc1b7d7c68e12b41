import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/**
 * An account's webhook secrets as they sign now: `previous` (the secret the last rotation
 * replaced) and `previousValidUntil` only while that rotation's window lasts.
 */
export interface WebhookSecrets {
  current: string;
  previous?: string;
  previousValidUntil?: Date;
}

interface SecretsRow {
  secret: string;
  previous_secret: string | null;
  previous_valid_until: Date | null;
}

/**
 * The secret columns of `accounts` (aliased `alias`) with the window applied, as `secret`,
 * `previous_secret`, `previous_valid_until`. The window is judged by the database clock, the one
 * that set it, whichever process reads.
 */
export const webhookSecretColumns = (alias: string) => `${alias}.webhook_secret AS secret,
  CASE WHEN ${alias}.previous_webhook_secret_valid_until > now() THEN ${alias}.previous_webhook_secret END
    AS previous_secret,
  CASE WHEN ${alias}.previous_webhook_secret_valid_until > now() THEN ${alias}.previous_webhook_secret_valid_until END
    AS previous_valid_until`;

/** Maps a row read with webhookSecretColumns. */
export function webhookSecretsOf(row: SecretsRow): WebhookSecrets {
  return row.previous_secret !== null && row.previous_valid_until !== null
    ? { current: row.secret, previous: row.previous_secret, previousValidUntil: row.previous_valid_until }
    : { current: row.secret };
}

/** The account's webhook secrets (GET /settings, the test webhook). Undefined for an unknown account. */
export async function getWebhookSecrets(db: Db, accountId: string): Promise<WebhookSecrets | undefined> {
  const { rows } = await db.query<SecretsRow>(
    `SELECT ${webhookSecretColumns('a')} FROM accounts a WHERE a.id = $1`,
    [accountId],
  );
  return rows[0] && webhookSecretsOf(rows[0]);
}

/**
 * Makes `secret` the account's secret; the one it replaces stays valid for `windowMs` (0: not at
 * all). Setting the current secret again changes nothing, so a retried request neither cuts a
 * window short nor makes the new secret its own predecessor. A rotation during a window starts a
 * new one: the secret before the last is then no longer valid.
 */
export async function rotateWebhookSecret(
  db: Db,
  accountId: string,
  secret: string,
  windowMs: number,
): Promise<WebhookSecrets | undefined> {
  // Every right-hand side of an UPDATE reads the row as it was; RETURNING reads it as it is now.
  const { rows } = await db.query<SecretsRow>(
    `UPDATE accounts a SET
       previous_webhook_secret =
         CASE WHEN a.webhook_secret = $2 THEN a.previous_webhook_secret ELSE a.webhook_secret END,
       previous_webhook_secret_valid_until =
         CASE WHEN a.webhook_secret = $2 THEN a.previous_webhook_secret_valid_until
              ELSE now() + make_interval(secs => $3::double precision / 1000) END,
       webhook_secret = $2
     WHERE a.id = $1
     RETURNING ${webhookSecretColumns('a')}`,
    [accountId, secret, windowMs],
  );
  return rows[0] && webhookSecretsOf(rows[0]);
}
