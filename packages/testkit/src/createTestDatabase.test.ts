import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './createTestDatabase.ts';
import { loadMigrate } from './loadMigrate.ts';

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((database) => database.drop()));
});

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const tablesOf = (url: string) =>
  withClient(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      "SELECT schemaname || '.' || tablename AS name FROM pg_tables " +
        "WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
    );
    return rows.map((row) => row.name);
  });

describe('createTestDatabase', () => {
  it('round-trips rows through PostgreSQL, numeric(78,0) amounts included', async () => {
    const database = await createTestDatabase({ migrated: false });
    databases.push(database);
    const rows = await withClient(database.url, async (client) => {
      await client.query('CREATE TABLE transfers (log_index int PRIMARY KEY, amount numeric(78,0) NOT NULL)');
      await client.query('INSERT INTO transfers VALUES ($1, $2), ($3, $4)', [
        0,
        (2n ** 256n - 1n).toString(),
        1,
        '1000000000000000000',
      ]);
      const result = await client.query<{ log_index: number; amount: string }>(
        'SELECT log_index, amount FROM transfers ORDER BY log_index',
      );
      return result.rows;
    });
    expect(rows).toEqual([
      {
        log_index: 0,
        amount: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      },
      { log_index: 1, amount: '1000000000000000000' },
    ]);
  });

  it('gives each test its own database: a table made in one is absent from the other', async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    databases.push(first, second);
    expect(first.name).not.toBe(second.name);
    const before = await tablesOf(second.url);
    await withClient(first.url, (client) => client.query('CREATE TABLE only_in_first (id int)'));
    expect(await tablesOf(first.url)).toContain('public.only_in_first');
    expect(await tablesOf(second.url)).toEqual(before);
  });

  it('copies the migrated template: every test database starts with the same tables', async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    databases.push(first, second);
    const tables = await tablesOf(first.url);
    expect(await tablesOf(second.url)).toEqual(tables);
    if (await loadMigrate()) expect(tables.length).toBeGreaterThan(0);
  });

  it('drop() removes the database', async () => {
    const database = await createTestDatabase({ migrated: false });
    await database.drop();
    await expect(withClient(database.url, (client) => client.query('SELECT 1'))).rejects.toThrow(
      /does not exist/,
    );
  });
});
