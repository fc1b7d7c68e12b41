import { withTransaction } from '../withTransaction.ts';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/** Keys look like `trb_<32 url-safe chars>`; the first 12 characters are the public prefix. */
const API_KEY_PREFIX_LENGTH = 12;

function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

function generateApiKey(): { key: string; hash: Buffer; prefix: string } {
  const key = `trb_${randomBytes(24).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
}

export interface ApiKeyAccount {
  keyId: string;
  accountId: string;
  accountName: string;
  webhookSecret: string;
  revoked: boolean;
}

/** The account behind a key, looked up by the key's sha256 (unique index). Undefined when unknown. */
export async function findAccountByApiKey(db: Queryable, key: string): Promise<ApiKeyAccount | undefined> {
  const { rows } = await db.query<{
    key_id: string;
    account_id: string;
    name: string;
    webhook_secret: string;
    revoked: boolean;
  }>(
    `SELECT k.id AS key_id, a.id AS account_id, a.name, a.webhook_secret, k.revoked_at IS NOT NULL AS revoked
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = $1`,
    [hashApiKey(key)],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    keyId: r.key_id,
    accountId: r.account_id,
    accountName: r.name,
    webhookSecret: r.webhook_secret,
    revoked: r.revoked,
  };
}

export interface CreatedApiKey {
  /** Shown once: only its hash is stored. */
  key: string;
  keyId: string;
  prefix: string;
  accountId: string;
  accountName: string;
  webhookSecret: string;
  accountCreated: boolean;
}

/**
 * Creates a key for the account named `accountName`, creating the account (with a random webhook
 * secret) when no account has that name yet. Runs in one transaction.
 */
export async function createAccountWithKey(
  pool: pg.Pool,
  opts: { accountName: string; label?: string },
): Promise<CreatedApiKey> {
  return withTransaction(pool, async (client) => {
    // Serialises concurrent "create account if needed" for the same name.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`account:${opts.accountName}`]);
    const found = await client.query<{ id: string; webhook_secret: string }>(
      'SELECT id, webhook_secret FROM accounts WHERE name = $1 ORDER BY created_at, id LIMIT 1',
      [opts.accountName],
    );
    let account = found.rows[0];
    const accountCreated = account === undefined;
    if (!account) {
      account = { id: randomUUID(), webhook_secret: randomBytes(24).toString('base64url') };
      await client.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
        account.id,
        opts.accountName,
        account.webhook_secret,
      ]);
    }
    const { key, hash, prefix } = generateApiKey();
    const keyId = randomUUID();
    await client.query(
      'INSERT INTO api_keys (id, account_id, key_hash, prefix, label) VALUES ($1, $2, $3, $4, $5)',
      [keyId, account.id, hash, prefix, opts.label ?? null],
    );
    return {
      key,
      keyId,
      prefix,
      accountId: account.id,
      accountName: opts.accountName,
      webhookSecret: account.webhook_secret,
      accountCreated,
    };
  });
}

export type RevokeOutcome =
  | { outcome: 'revoked'; prefix: string }
  | { outcome: 'not-found' }
  | { outcome: 'ambiguous'; prefixes: string[] };

/**
 * Revokes one key given in full or by a prefix that matches exactly one active key.
 * Revoking twice keeps the first revocation time.
 */
export async function revokeApiKey(db: Queryable, keyOrPrefix: string): Promise<RevokeOutcome> {
  const byHash = await db.query<{ prefix: string }>(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_hash = $1 RETURNING prefix',
    [hashApiKey(keyOrPrefix)],
  );
  if (byHash.rows[0]) return { outcome: 'revoked', prefix: byHash.rows[0].prefix };
  if (keyOrPrefix.length < 6) return { outcome: 'not-found' };
  const candidates = await db.query<{ id: string; prefix: string }>(
    `SELECT id, prefix FROM api_keys
      WHERE revoked_at IS NULL AND (starts_with(prefix, $1) OR starts_with($1, prefix))`,
    [keyOrPrefix],
  );
  if (candidates.rows.length === 0) return { outcome: 'not-found' };
  if (candidates.rows.length > 1)
    return { outcome: 'ambiguous', prefixes: candidates.rows.map((r) => r.prefix) };
  const only = candidates.rows[0]!;
  await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [only.id]);
  return { outcome: 'revoked', prefix: only.prefix };
}

export interface ApiKeyListing {
  keyId: string;
  prefix: string;
  label: string | null;
  accountId: string;
  accountName: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function listApiKeys(db: Queryable): Promise<ApiKeyListing[]> {
  const { rows } = await db.query<{
    id: string;
    prefix: string;
    label: string | null;
    account_id: string;
    name: string;
    created_at: Date;
    revoked_at: Date | null;
  }>(
    `SELECT k.id, k.prefix, k.label, k.account_id, a.name, k.created_at, k.revoked_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      ORDER BY a.name, k.created_at, k.id`,
  );
  return rows.map((r) => ({
    keyId: r.id,
    prefix: r.prefix,
    label: r.label,
    accountId: r.account_id,
    accountName: r.name,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}
