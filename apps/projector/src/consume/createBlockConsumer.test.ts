import { TOPICS } from '@tributary/schema';
import { blockEventCodec, createDeadLetters, createProducer, ensureTopics } from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { createLogger } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { createOutage } from '../health/createOutage.ts';
import type { BlockProjector } from '../project/createBlockProjector.ts';
import { block, expectedState, projectedState, range } from '../testing/blockEvents.ts';
import { migratedDatabase } from '../testing/migratedDatabase.ts';
import { type TestTopic, createTestTopic, until } from '../testing/testTopic.ts';
import { type BlockConsumer, createBlockConsumer } from './createBlockConsumer.ts';
import { loadEnv } from '../env.ts';

// The consumer against real Kafka and PostgreSQL, through the faults a user would see: a failing
// transaction, connections PostgreSQL terminates, a poison message, a rebalance, a stop mid-batch
// and a consumer crash kafkajs does not restart. After each, every block is projected exactly
// once (balances count every projection) and the committed offsets reach the end.

const logger = createLogger('consumer-test', 'silent');
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function freshDatabase(poolSize = 3): Promise<{ pool: Pool; projector: BlockProjector }> {
  const { pool, projector, drop } = await migratedDatabase(poolSize);
  cleanups.push(drop);
  return { pool, projector };
}

async function freshTopic(partitions = 1): Promise<TestTopic> {
  const t = await createTestTopic(partitions);
  cleanups.push(() => t.delete());
  return t;
}

/**
 * Fails the `which`-th statement inserting blocks (a sequence is not rolled back with it) with a
 * failure a later try clears: a serialization failure (SQLSTATE 40001).
 */
const FAIL_ONE_INSERT = (which: number) => `
  CREATE SEQUENCE block_inserts;
  CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF nextval('block_inserts') = ${which} THEN
      RAISE EXCEPTION 'injected failure' USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER fail_once BEFORE INSERT ON blocks FOR EACH STATEMENT EXECUTE FUNCTION fail_once();`;

/**
 * Every insert of block `number` fails the same way, every time: with SQLSTATE `code`
 * (23514 check_violation: deterministic; XX001 data_corrupted: of unknown cause).
 */
const ALWAYS_FAIL_BLOCK = (number: number, code: string) => `
  CREATE FUNCTION always_fail() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.number = ${number} THEN
      RAISE EXCEPTION 'block % cannot be stored', NEW.number USING ERRCODE = '${code}';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER always_fail BEFORE INSERT ON blocks FOR EACH ROW EXECUTE FUNCTION always_fail();`;

/** Every statement inserting blocks takes `seconds` (the first `count` of them only, if given). */
const SLOW_INSERTS = (seconds: number, count = 1_000_000) => `
  CREATE SEQUENCE block_inserts;
  CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF nextval('block_inserts') <= ${count} THEN PERFORM pg_sleep(${seconds}); END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER slow_insert BEFORE INSERT ON blocks FOR EACH STATEMENT EXECUTE FUNCTION slow_insert();`;

interface Started {
  consumer: BlockConsumer;
  fatal: unknown[];
  deadLetters: number;
}

async function startConsumer(
  t: TestTopic,
  projector: BlockProjector,
  opts: { maxBytesPerPartition?: number; maxTransactionBytes?: number; unknownAttempts?: number } = {},
): Promise<Started> {
  await ensureTopics(t.kafka, [{ topic: `${t.prefix}${TOPICS.deadLetters}` }]);
  const producer = createProducer(t.kafka, 'ordered');
  await producer.connect();
  const started: Started = { consumer: undefined as unknown as BlockConsumer, fatal: [], deadLetters: 0 };
  started.consumer = createBlockConsumer({
    kafka: t.kafka,
    topic: t.topic,
    groupId: t.groupId,
    projector,
    deadLetters: createDeadLetters({
      producer,
      topicPrefix: t.prefix,
      consumer: 'projector',
      onDeadLetter: () => started.deadLetters++,
    }),
    logger,
    outages: {
      postgres: createOutage({ what: 'postgres', logger }),
      kafka: createOutage({ what: 'kafka', logger }),
    },
    onFatal: (err) => started.fatal.push(err),
    maxBytesPerPartition: opts.maxBytesPerPartition ?? loadEnv({}).KAFKA_MAX_BYTES_PER_PARTITION,
    maxTransactionBytes: opts.maxTransactionBytes ?? 1, // one block per transaction
    maxRetryDelayMs: 500,
    unknownAttempts: opts.unknownAttempts,
  });
  cleanups.push(async () => {
    await started.consumer.stop();
    await producer.disconnect();
  });
  await started.consumer.start();
  return started;
}

const atEnd = (t: TestTopic, ends: string[]) =>
  until(
    'offsets committed to the end',
    async () => JSON.stringify(await t.committed()) === JSON.stringify(ends),
  );

describe('createBlockConsumer', () => {
  it('goes back to the first uncommitted offset when a transaction fails: every block once, offsets to the end', async () => {
    const { pool, projector } = await freshDatabase();
    await pool.query(FAIL_ONE_INSERT(3));
    const t = await freshTopic();
    await t.send(range(14).map(block));
    const { consumer, fatal } = await startConsumer(t, projector, { maxBytesPerPartition: 6 * 1024 });
    await atEnd(t, ['14']);
    await consumer.stop();

    const { rows: seq } = await pool.query<{ n: string }>('SELECT last_value::text AS n FROM block_inserts');
    expect(Number(seq[0]!.n)).toBeGreaterThan(14); // the failed statement, then every block
    expect(await projectedState(pool)).toEqual(expectedState(range(14)));
    expect(fatal).toEqual([]);
  });

  for (const [kind, code, attempts] of [
    ['deterministic (a check violation)', '23514', 'at once'],
    ['of unknown cause (data corrupted)', 'XX001', 'after its tries'],
  ] as const) {
    it(`sets aside the one block whose projection fails ${attempts}, ${kind}: every other block once, offsets to the end`, async () => {
      const { pool, projector } = await freshDatabase();
      await pool.query(ALWAYS_FAIL_BLOCK(5, code));
      const t = await freshTopic();
      await t.send(range(10).map(block));
      // Several blocks per transaction: the failing one is found by projecting them one at a time.
      const started = await startConsumer(t, projector, { maxTransactionBytes: 1 << 20, unknownAttempts: 2 });
      await atEnd(t, ['10']);
      await started.consumer.stop();
      expect(await projectedState(pool)).toEqual(expectedState([0, 1, 2, 3, 4, 6, 7, 8, 9]));
      expect(started.deadLetters).toBe(1);
      const [letter] = await readAll(t, `${t.prefix}${TOPICS.deadLetters}`, 1);
      expect(letter?.offset).toBe('5');
      expect(letter?.value).toBe(blockEventCodec.encode(block(5)).toString());
      expect(letter?.reason).toMatch(
        code === '23514'
          ? /^block 5 \(0x[0-9a-f]{64}, confirmed\) of chain 31337: projection failed for good: PostgreSQL 23514 \(check_violation\): block 5 cannot be stored/
          : /^block 5 .* of chain 31337: projection failed 2 times, cause unknown: PostgreSQL XX001: block 5 cannot be stored/,
      );
      expect(started.fatal).toEqual([]);
    });
  }

  it('starts a chunk only after the one before wrote its rows: the same block in two chunks never stalls', async () => {
    const { pool, projector } = await freshDatabase();
    // The first block insert is slow: the next chunk (the same block, confirmed) must not insert
    // the block first, or the first chunk waits for it while it waits for the first chunk.
    await pool.query(SLOW_INSERTS(1, 1));
    const t = await freshTopic();
    await t.send([{ ...block(0), type: 'new' } as BlockEvent, block(0), block(1)]);
    const { consumer } = await startConsumer(t, projector);
    await atEnd(t, ['3']);
    await consumer.stop();
    expect(await projectedState(pool)).toEqual(expectedState([0, 1]));
    const { rows } = await pool.query('SELECT number, confirmed FROM blocks ORDER BY number');
    expect(rows).toEqual([
      { number: '0', confirmed: true },
      { number: '1', confirmed: true },
    ]);
  });

  it('writes a new branch only after the removal before it committed', async () => {
    const { pool, projector } = await freshDatabase();
    // A slow removal: the next chunk's insert of the new block 1 must not meet the orphaned one.
    await pool.query(`
      CREATE FUNCTION slow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$;
      CREATE TRIGGER slow_delete BEFORE DELETE ON blocks FOR EACH STATEMENT EXECUTE FUNCTION slow_delete();`);
    const orphan = block(1);
    // Without transfers: the branch takes no history lock that would order it after the removal.
    const branch = {
      ...orphan,
      block: { ...orphan.block, hash: `0x${'b'.repeat(64)}` },
      logs: [],
      transfers: [],
    } as BlockEvent;
    const removal: BlockEvent = { type: 'removed', v: 2, chainId: 31337, block: orphan.block };
    const t = await freshTopic();
    await t.send([block(0), orphan, removal, branch]);
    const { consumer } = await startConsumer(t, projector);
    await atEnd(t, ['4']);
    await consumer.stop();
    const { rows } = await pool.query(
      `SELECT number, '0x' || encode(hash, 'hex') AS hash FROM blocks ORDER BY number`,
    );
    expect(rows).toEqual([
      { number: '0', hash: block(0).block.hash },
      { number: '1', hash: branch.block.hash },
    ]);
    // Block 0's transfers only (the orphan's were reversed: its wallets keep a zero balance).
    const nonZero = (b: { balance: string }[]) => b.filter((x) => x.balance !== '0');
    const state = await projectedState(pool);
    expect({ ...state, balances: nonZero(state.balances) }).toEqual({
      ...expectedState([0]),
      blocks: 2,
      balances: nonZero(expectedState([0]).balances),
    });
  });

  it('sends a poison message to the dead-letter topic and moves on past it', async () => {
    const { pool, projector } = await freshDatabase();
    const t = await freshTopic();
    const { chainId: _drop, ...noChain } = block(2);
    // Payload version 1 was never published by a release: refused like any message that does not match.
    const v1 = { ...block(2), v: 1 };
    await t.send([
      block(0),
      block(1),
      Buffer.from('{"type":"new", oops'),
      Buffer.from(JSON.stringify(noChain)),
      Buffer.from(JSON.stringify(v1)),
      block(3),
    ]);
    const started = await startConsumer(t, projector, { maxTransactionBytes: 4096 });
    await atEnd(t, ['6']);
    await started.consumer.stop();
    expect(await projectedState(pool)).toEqual(expectedState([0, 1, 3]));
    expect(started.deadLetters).toBe(3);

    const letters = await readAll(t, `${t.prefix}${TOPICS.deadLetters}`, 3);
    expect(letters.map((l) => [l.offset, l.value, l.reason.split(':')[0]])).toEqual([
      ['2', '{"type":"new", oops', 'DecodeError'],
      ['3', JSON.stringify(noChain), 'DecodeError'],
      ['4', JSON.stringify(v1), 'DecodeError'],
    ]);
    expect(letters[0]!.reason).toContain('not JSON');
    expect(letters[1]!.reason).toContain('chainId');
    expect(letters[2]!.reason).toContain('block event version 1: only version 2 is accepted');
  });

  it('survives PostgreSQL terminating its connections mid-transaction: retried, every block once', async () => {
    const { pool, projector } = await freshDatabase(4);
    await pool.query(SLOW_INSERTS(0.3));
    const t = await freshTopic();
    await t.send(range(10).map(block));
    const { consumer, fatal } = await startConsumer(t, projector);
    await until('a few blocks projected', async () => (await projectedState(pool)).blocks >= 3);
    // What a restart of PostgreSQL does to the projector's connections (active, idle in transaction, idle).
    const { rows: killed } = await pool.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    expect(killed.length).toBeGreaterThan(0);
    await atEnd(t, ['10']);
    await consumer.stop();
    expect(await projectedState(pool)).toEqual(expectedState(range(10)));
    expect(fatal).toEqual([]);
  });

  it('hands partitions over in a rebalance mid-batch: every block once, both partitions to the end', async () => {
    const { pool, projector } = await freshDatabase(6);
    await pool.query(SLOW_INSERTS(0.2));
    const t = await freshTopic(2);
    await t.send(
      range(12).map((n) => block(2 * n)),
      0,
    );
    await t.send(
      range(12).map((n) => block(2 * n + 1)),
      1,
    );
    const first = await startConsumer(t, projector);
    await until('the first consumer is projecting', async () => (await projectedState(pool)).blocks >= 2);
    const second = await startConsumer(t, projector); // joins the group: a rebalance mid-batch
    await atEnd(t, ['12', '12']);
    // Each member knows what it holds (its watchdog counts only that lag).
    const held = () => [first, second].map((s) => s.consumer.assignedPartitions());
    await until(
      'each member holding one partition',
      async () => JSON.stringify(held().sort()) === '[[0],[1]]',
    );
    await first.consumer.stop();
    await second.consumer.stop();
    expect(await projectedState(pool)).toEqual(expectedState(range(24)));
    expect([...first.fatal, ...second.fatal]).toEqual([]);
  });

  it('stops during a batch with its offsets never ahead of its rows, and a restart finishes the rest once', async () => {
    const { pool, projector } = await freshDatabase();
    await pool.query(SLOW_INSERTS(0.2));
    const t = await freshTopic();
    await t.send(range(10).map(block));
    const first = await startConsumer(t, projector);
    await until('a few blocks projected', async () => (await projectedState(pool)).blocks >= 3);
    await first.consumer.stop();
    const [offset] = await t.committed();
    const { blocks } = await projectedState(pool);
    expect(Number(offset)).toBe(blocks); // the in-flight chunks finished and committed, nothing more
    expect(blocks).toBeLessThan(10);

    await startConsumer(t, projector);
    await atEnd(t, ['10']);
    expect(await projectedState(pool)).toEqual(expectedState(range(10)));
  });

  it('reports a consumer crash that kafkajs will not restart', async () => {
    const { projector } = await freshDatabase();
    const t = await freshTopic();
    // A member that speaks another assignment protocol holds the group: joining it fails with
    // INCONSISTENT_GROUP_PROTOCOL, which kafkajs does not retry.
    const other = t.kafka.consumer({
      groupId: t.groupId,
      partitionAssigners: [
        () => ({
          name: 'other-protocol',
          version: 0,
          protocol: () => ({ name: 'other-protocol', metadata: Buffer.alloc(0) }),
          assign: async () => [],
        }),
      ],
    });
    await other.connect();
    await other.subscribe({ topic: t.topic });
    await other.run({ eachMessage: async () => {} });
    cleanups.push(() => other.disconnect());
    await until(
      'the other member joined',
      async () => (await t.admin.describeGroups([t.groupId])).groups[0]?.state === 'Stable',
    );

    const started = await startConsumer(t, projector);
    await until('the crash is reported', async () => started.fatal.length > 0);
    expect(String(started.fatal[0])).toMatch(/protocol/i);
    expect(started.consumer.isConnected()).toBe(false);
  });
});

/** The first `count` messages of a dead-letter topic: origin offset, value and reason. */
async function readAll(t: TestTopic, topic: string, count: number) {
  const reader = t.kafka.consumer({ groupId: `${t.groupId}-reader` });
  await reader.connect();
  await reader.subscribe({ topic, fromBeginning: true });
  const seen: { offset: string; value: string; reason: string }[] = [];
  await reader.run({
    eachMessage: async ({ message }) => {
      seen.push({
        offset: String(message.headers?.['x-source-offset']),
        value: message.value?.toString() ?? '',
        reason: String(message.headers?.['x-reason']),
      });
    },
  });
  try {
    await until('the dead letters', async () => seen.length >= count);
  } finally {
    await reader.disconnect();
  }
  return seen;
}
