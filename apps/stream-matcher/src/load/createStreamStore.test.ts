import { randomUUID } from 'node:crypto';
import { type Pool, type PoolClient, createPool } from '@tributary/db';
import {
  addStreamAddresses,
  insertStream,
  recordStreamFailures,
  setStreamStatus,
} from '@tributary/db/streams';
import { createLogger } from '@tributary/runtime';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreamStore } from './createStreamStore.ts';
import { erc20TransferEventAbi } from '@tributary/evm';

let db: TestDatabase;
let pool: Pool;
let accountId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  accountId = randomUUID();
  await pool.query(`INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, 'a', 's')`, [accountId]);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function newStream(db: Pool | PoolClient = pool): Promise<string> {
  const id = randomUUID();
  await insertStream(db, {
    id,
    accountId,
    chainIds: [31337],
    config: {
      webhookUrl: 'http://127.0.0.1:9/h',
      description: 'd',
      tag: 't',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    },
  });
  return id;
}

// Changes whose change event never reached the matcher (Kafka away while the gateway published).
describe('stream store reconcile', () => {
  it('finds streams created, re-addressed, paused and deleted without a change event', async () => {
    const store = createStreamStore({ pool, logger: createLogger('store', 'silent') });
    const kept = await newStream();
    await store.loadAll();
    expect(await store.reconcile()).toEqual([]);

    const created = await newStream();
    expect(await store.reconcile()).toEqual([created]);
    expect(store.get(created)?.status).toBe('active');

    const token = `0x${'ab'.repeat(20)}`;
    await addStreamAddresses(pool, created, [token]);
    expect(await store.reconcile()).toEqual([created]);
    expect(store.get(created)?.addresses.has(token)).toBe(true);

    await setStreamStatus(pool, accountId, created, 'paused', 'Stream is paused');
    expect(await store.reconcile()).toEqual([created]);
    expect(store.get(created)).toBeUndefined();

    await pool.query('DELETE FROM streams WHERE id = $1', [kept]);
    expect(await store.reconcile()).toEqual([kept]);
    expect(store.get(kept)).toBeUndefined();
    expect(await store.reconcile()).toEqual([]);
    // Delivery health moves often and is not part of what the matcher evaluates.
    const other = await newStream();
    await store.reconcile();
    await pool.query('UPDATE streams SET success_rate = 90 WHERE id = $1', [other]);
    expect(await store.reconcile()).toEqual([]);
  });
});

// The check before blocks are evaluated: a change committed before a block is in memory when it is
// evaluated, whether or not its change event has come.
describe('stream store catch-up before a block', () => {
  it('reloads exactly the streams whose evaluated state changed since, and nothing when none did', async () => {
    const store = createStreamStore({ pool, logger: createLogger('store', 'silent') });
    await store.loadAll();
    expect(await store.catchUp()).toEqual([]);

    const created = await newStream();
    expect(await store.catchUp()).toEqual([created]);
    expect(store.get(created)?.status).toBe('active');
    expect(await store.catchUp()).toEqual([]);

    const token = `0x${'cd'.repeat(20)}`;
    await addStreamAddresses(pool, created, [token]);
    expect(await store.catchUp()).toEqual([created]);
    expect([...store.get(created)!.addresses]).toEqual([token]);

    // Delivery health is not evaluated: no reload.
    await pool.query('UPDATE streams SET success_rate = 80 WHERE id = $1', [created]);
    expect(await store.catchUp()).toEqual([]);

    await recordStreamFailures(pool, created, 20, 70);
    expect(await store.catchUp()).toEqual([created]);
    expect(store.get(created)?.status).toBe('error');

    await setStreamStatus(pool, accountId, created, 'paused', 'Stream is paused');
    expect(await store.catchUp()).toEqual([created]);
    expect(store.get(created)).toBeUndefined();
    expect(store.countByStatus().get('active')).toBe(
      Number((await pool.query(`SELECT count(*) AS n FROM streams WHERE status = 'active'`)).rows[0].n),
    );
  });

  it('does not wait for a change still in its transaction, and takes it once committed', async () => {
    const store = createStreamStore({ pool, logger: createLogger('store', 'silent') });
    await store.loadAll();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const id = await newStream(client);
      expect(await store.catchUp()).toEqual([]);
      expect(store.get(id)).toBeUndefined();
      await client.query('COMMIT');
      expect(await store.catchUp()).toEqual([id]);
      expect(store.get(id)?.status).toBe('active');
    } finally {
      client.release();
    }
  });
});
