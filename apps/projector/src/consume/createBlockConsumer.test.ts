import { randomBytes } from 'node:crypto';
import { blockEventCodec, createKafka } from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { createLogger } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlockProjector } from '../project/createBlockProjector.ts';
import { migratedDatabase } from '../testing/migratedDatabase.ts';
import { createBlockConsumer } from './createBlockConsumer.ts';

// The consumer keeps a transaction in flight across fetches and resolves a chunk's offsets before
// its transaction commits. Against real Kafka and PostgreSQL: a transaction that fails (a real
// PostgreSQL error, raised once by a trigger) must send the consumer back to the first offset not
// committed, so that every block is projected exactly once and the committed offsets reach the end.
const BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');
const BLOCKS = 14;
const FAILING_INSERT = 3;

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const TOKEN = a(0xbeef);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as `0x${string}`;
const word = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;

/** Block n: a mint of n + 1 to wallet n and a transfer of 1 from wallet n to wallet 0x99. */
function block(n: number): BlockEvent {
  const parties: [string, string, number][] = [
    [a(0), a(0x100 + n), n + 1],
    [a(0x100 + n), a(0x99), 1],
  ];
  return {
    type: 'confirmed',
    v: 2,
    chainId: 31337,
    block: { number: n, hash: h(n + 1), parentHash: h(n), timestamp: 1_700_000_000 + n },
    transactions: [],
    logs: parties.map(([from, to, value], i) => ({
      logIndex: i,
      transactionHash: h(5000 + n),
      transactionIndex: 0,
      address: TOKEN,
      data: h(value),
      topics: [TRANSFER, word(from), word(to)],
    })),
    internalTransactions: [],
    transfers: parties.map(([from, to, value], i) => ({
      logIndex: i,
      from: from as `0x${string}`,
      to: to as `0x${string}`,
      value: String(value),
    })),
    tokens: [],
    tokenInfo: [],
    accounts: [],
    hasTransactions: false,
    hasInternalTransactions: false,
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function freshDatabase(): Promise<{ pool: Pool; projector: BlockProjector }> {
  const { pool, projector, drop } = await migratedDatabase(3);
  cleanups.push(drop);
  return { pool, projector };
}

async function until(what: string, check: () => Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('createBlockConsumer', () => {
  it('goes back to the first uncommitted offset when a transaction fails: every block once, offsets to the end', async () => {
    const { pool, projector } = await freshDatabase();
    // The third statement that inserts blocks fails (a sequence is not rolled back with it).
    await pool.query(`
      CREATE SEQUENCE block_inserts;
      CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('block_inserts') = ${FAILING_INSERT} THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER fail_once BEFORE INSERT ON blocks FOR EACH STATEMENT EXECUTE FUNCTION fail_once();`);

    const id = randomBytes(4).toString('hex');
    const topic = `test-consumer-${id}`;
    const groupId = `test-consumer-${id}`;
    const kafka = createKafka({ brokers: BROKERS, clientId: `test-${id}` });
    const kafkaAdmin = kafka.admin();
    await kafkaAdmin.connect();
    cleanups.push(async () => {
      await kafkaAdmin.deleteTopics({ topics: [topic] }).catch(() => {});
      await kafkaAdmin.disconnect();
    });
    await kafkaAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    // One send per block: separate record batches, so that fetches of a few kilobytes hold a few
    // blocks each and the consumer goes through many fetches.
    for (let n = 0; n < BLOCKS; n++) {
      await producer.send({ topic, messages: [{ key: '31337', value: blockEventCodec.encode(block(n)) }] });
    }
    await producer.disconnect();

    const consumer = createBlockConsumer({
      kafka,
      topic,
      groupId,
      projector,
      logger: createLogger('consumer-test', 'silent'),
      maxBytesPerPartition: 6 * 1024,
      maxTransactionBytes: 1, // one block per transaction
    });
    await consumer.start();
    try {
      await until('every block projected', async () => {
        const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blocks');
        return rows[0]!.n === BLOCKS;
      });
      await until('offsets committed to the end', async () => {
        const [offsets] = await kafkaAdmin.fetchOffsets({ groupId, topics: [topic] });
        return offsets?.partitions[0]?.offset === String(BLOCKS);
      });
    } finally {
      await consumer.stop();
    }

    const { rows: seq } = await pool.query<{ n: string }>('SELECT last_value::text AS n FROM block_inserts');
    expect(Number(seq[0]!.n)).toBeGreaterThan(BLOCKS); // the failed statement, then every block
    const { rows } = await pool.query<{ blocks: number; transfers: number; logs: number; distinct: number }>(
      `SELECT (SELECT count(*)::int FROM blocks) AS blocks, (SELECT count(*)::int FROM transfers) AS transfers,
              (SELECT count(*)::int FROM logs) AS logs,
              (SELECT count(DISTINCT (block_number, log_index))::int FROM transfers) AS distinct`,
    );
    expect(rows[0]).toEqual({
      blocks: BLOCKS,
      transfers: 2 * BLOCKS,
      logs: 2 * BLOCKS,
      distinct: 2 * BLOCKS,
    });
    // Balances from exactly one projection of each block: wallet n got n + 1 and sent 1.
    const { rows: balances } = await pool.query<{ owner: string; balance: string }>(
      `SELECT '0x' || encode(owner_address, 'hex') AS owner, balance::text AS balance FROM balances
        WHERE owner_address <> '\\x0000000000000000000000000000000000000000'::bytea ORDER BY 1`,
    );
    const expected = [
      ...Array.from({ length: BLOCKS }, (_, n) => ({ owner: a(0x100 + n), balance: String(n) })),
      { owner: a(0x99), balance: String(BLOCKS) },
    ].sort((x, y) => x.owner.localeCompare(y.owner));
    expect(balances).toEqual(expected);
  });

  it('starts a chunk only after the one before wrote its rows: the same block in two chunks never stalls', async () => {
    const { pool, projector } = await freshDatabase();
    // The first statement inserting blocks is slow: the chunk after (the same block, confirmed)
    // would otherwise insert it first and wait for the first chunk, which waits for its rows.
    await pool.query(`
      CREATE SEQUENCE block_inserts;
      CREATE FUNCTION slow_first() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('block_inserts') = 1 THEN PERFORM pg_sleep(1); END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER slow_first BEFORE INSERT ON blocks FOR EACH STATEMENT EXECUTE FUNCTION slow_first();`);
    const { kafka, kafkaAdmin, topic, groupId } = await freshTopic([
      { ...block(0), type: 'new' },
      block(0),
      block(1),
    ]);
    const consumer = createBlockConsumer({
      kafka,
      topic,
      groupId,
      projector,
      logger: createLogger('consumer-test', 'silent'),
      maxTransactionBytes: 1,
    });
    await consumer.start();
    try {
      await until(
        'offsets committed to the end',
        async () => {
          const [offsets] = await kafkaAdmin.fetchOffsets({ groupId, topics: [topic] });
          return offsets?.partitions[0]?.offset === '3';
        },
        20_000,
      );
    } finally {
      await consumer.stop();
    }
    const { rows } = await pool.query('SELECT number, confirmed FROM blocks ORDER BY number');
    expect(rows).toEqual([
      { number: '0', confirmed: true },
      { number: '1', confirmed: true },
    ]);
  });
});

async function freshTopic(events: BlockEvent[]) {
  const id = randomBytes(4).toString('hex');
  const topic = `test-consumer-${id}`;
  const groupId = `test-consumer-${id}`;
  const kafka = createKafka({ brokers: BROKERS, clientId: `test-${id}` });
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  cleanups.push(async () => {
    await kafkaAdmin.deleteTopics({ topics: [topic] }).catch(() => {});
    await kafkaAdmin.disconnect();
  });
  await kafkaAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({
    topic,
    messages: events.map((e) => ({ key: '31337', value: blockEventCodec.encode(e) })),
  });
  await producer.disconnect();
  return { kafka, kafkaAdmin, topic, groupId };
}
