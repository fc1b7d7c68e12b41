import type { Pool } from '@tributary/db';
import {
  countWalletTransfers,
  findContractLogs,
  findFirstBlockAtOrAfter,
  findLastBlockAtOrBefore,
  findTokenOwners,
  findWalletTransfers,
  latestTransferBlock,
  walletRangeTotal,
  walletTransferTotalAtHead,
} from '@tributary/db/queries';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_SESSION_SETTINGS } from '../db-settings/withSessionSettings.ts';
import { type TestDatabase, createTestDatabase } from '../testing/testDatabase.ts';

// Every index of the data tables is there for a query of the data interface: each query shape of
// the three routes is planned here on tables of a realistic size and skew (ANALYZEd, so that the
// planner sees real statistics) and must read the index it was written for, never a whole table.
// Plans are checked as the gateway gets them: its statements are named (prepared), so a pooled
// session runs them with a custom plan at first and may keep a generic one later; both are checked.
// Across all the shapes, every index of `transfers` and `logs` must be read by some query.

const CHAIN = 1;
const BLOCKS = 2_000;
const PER_BLOCK = 100;
const WALLETS = 20_000;
const TOKENS = 200;
const FIRST = 1_000;
const TRANSFER = '\\xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const addr = (prefix: string, rank: string) =>
  `substring(sha256('\\x${prefix}'::bytea || int8send(${rank}::bigint)) from 1 for 20)`;

/** Senders Zipf over the wallets (a few whales), receivers half Zipf half uniform, tokens Zipf: as the benchmark's dataset. */
const SEED = `
SELECT setseed(0.17);
INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, confirmed)
SELECT ${CHAIN}, b, sha256(int8send(b)), sha256(int8send(b - 1)), to_timestamp(1700000000 + b * 12), true
  FROM generate_series(${FIRST}, ${FIRST + BLOCKS - 1}) b;
INSERT INTO address_ids (chain_id, address, id)
SELECT ${CHAIN}, ${addr('77', 'r')}, r FROM generate_series(1, ${WALLETS - 1}) r
UNION ALL SELECT ${CHAIN}, ${addr('6b', 'k')}, ${WALLETS} + k FROM generate_series(1, ${TOKENS - 1}) k;
SELECT setval(pg_get_serial_sequence('address_ids', 'id'), ${WALLETS + TOKENS});
WITH g AS (
  SELECT i, least(${WALLETS - 1}, floor(power(${WALLETS}, random())))::bigint AS fr,
         CASE WHEN random() < 0.5 THEN least(${WALLETS - 1}, floor(power(${WALLETS}, random())))::bigint
              ELSE 1 + floor(random() * ${WALLETS - 1})::bigint END AS tr,
         least(${TOKENS - 1}, floor(power(${TOKENS}, random())))::bigint AS kr
    FROM generate_series(0, ${BLOCKS * PER_BLOCK - 1}) i
), t AS (
  INSERT INTO transfers (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                         transaction_index, token_id, from_id, to_id, token_address, from_address, to_address, value)
  SELECT ${CHAIN}, ${FIRST} + i / ${PER_BLOCK}, (i % ${PER_BLOCK})::int, sha256(int8send(${FIRST} + i / ${PER_BLOCK})),
         to_timestamp(1700000000 + (${FIRST} + i / ${PER_BLOCK}) * 12), sha256(int8send(i / 2)), ((i % ${PER_BLOCK}) / 2)::int,
         ${WALLETS} + kr, fr, tr, ${addr('6b', 'kr')}, ${addr('77', 'fr')}, ${addr('77', 'tr')}, 1 + i % 1000
    FROM g
  RETURNING *
)
INSERT INTO logs (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                  transaction_index, address_id, address, topic0, topic1, topic2, data)
SELECT chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index,
       token_id, token_address, '${TRANSFER}'::bytea, from_address, to_address, '\\x01'::bytea FROM t;
INSERT INTO tokens (chain_id, address, name, symbol, decimals, total_supply, read_at_block)
SELECT ${CHAIN}, ${addr('6b', 'k')}, 'T' || k, 'T' || k, 18, 1000000000, ${FIRST} FROM generate_series(1, ${TOKENS - 1}) k
UNION ALL -- tokens without transfers here: a chain knows many more tokens than a page names
SELECT ${CHAIN}, ${addr('74', 'k')}, 'U' || k, 'U' || k, 18, NULL, ${FIRST} FROM generate_series(1, 20000) k;
INSERT INTO balances (chain_id, token_address, owner_address, balance, transfer_count)
SELECT ${CHAIN}, token_address, owner, greatest(sum(delta), 0), sum(n)
  FROM (SELECT token_address, to_address AS owner, value AS delta,
               CASE WHEN to_address = from_address THEN 0 ELSE 1 END AS n FROM transfers
        UNION ALL SELECT token_address, from_address, -value, 1 FROM transfers) d
 GROUP BY token_address, owner;
INSERT INTO wallet_transfer_counts (chain_id, wallet, transfers)
SELECT chain_id, owner_address, sum(transfer_count) FROM balances GROUP BY chain_id, owner_address;
INSERT INTO address_labels (chain_id, address, label)
SELECT ${CHAIN}, ${addr('77', 'r')}, 'Label ' || r FROM generate_series(1, 2000) r;
-- Range-total checkpoints of the busiest wallets (the whale's are read; the long tail's computed).
INSERT INTO wallet_transfer_checkpoints (chain_id, wallet, before_block, transfers)
SELECT ${CHAIN}, ${addr('77', 'r')}, c * 256, 0 FROM generate_series(1, 2000) r, generate_series(4, 11) c;
INSERT INTO address_kinds (chain_id, address, is_contract)
SELECT ${CHAIN}, ${addr('77', 'r')}, r % 2 = 0 FROM generate_series(1, 2000) r;`;

const DATA_TABLES = [
  'blocks',
  'address_ids',
  'transfers',
  'logs',
  'tokens',
  'balances',
  'wallet_transfer_counts',
  'wallet_transfer_checkpoints',
  'address_labels',
  'address_kinds',
];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

interface Scan {
  node: string;
  relation?: string;
  index?: string;
}

function scans(node: PlanNode, out: Scan[] = []): Scan[] {
  if (node['Relation Name'] || node['Index Name'])
    out.push({ node: node['Node Type'], relation: node['Relation Name'], index: node['Index Name'] });
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

/** A value as an SQL literal, for EXECUTE (the statements' parameters are bigint, bytea, bytea[], text). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Date) return `'${v.toISOString()}'::timestamptz`;
  if (Buffer.isBuffer(v)) return `'\\x${v.toString('hex')}'::bytea`;
  if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(', ')}]::bytea[]`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return `'${String(v).replaceAll("'", "''")}'`;
}

type Mode = 'custom' | 'generic';

/**
 * A Queryable that, before running each statement, plans it as a prepared statement in both
 * modes (EXPLAIN EXECUTE) and keeps the scans of each plan.
 */
let statements = 0;

function planning(pool: Pool, client: pg.PoolClient, seen: { sql: string; mode: Mode; scans: Scan[] }[]) {
  return {
    async query(config: string | pg.QueryConfig, values?: unknown[]) {
      const text = typeof config === 'string' ? config : config.text;
      const params = (typeof config === 'string' ? values : config.values) ?? [];
      const name = `plan_${statements++}`;
      await client.query(`PREPARE ${name} AS ${text}`);
      try {
        for (const mode of ['custom', 'generic'] as const) {
          await client.query(`SET plan_cache_mode = force_${mode}_plan`);
          const args = params.length > 0 ? `(${params.map(literal).join(', ')})` : '';
          const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
            `EXPLAIN (FORMAT JSON) EXECUTE ${name}${args}`,
          );
          seen.push({ sql: text, mode, scans: scans(rows[0]!['QUERY PLAN'][0]!.Plan) });
        }
      } finally {
        await client.query(`DEALLOCATE ${name}`);
      }
      // biome-ignore lint/suspicious/noExplicitAny: passes the caller's own overload through
      return pool.query(config as any, values);
    },
  } as unknown as Pool;
}

let db: TestDatabase;
let client: pg.PoolClient;
const wallet = (rank: number) => ({ sql: addr('77', String(rank)) });
let hex: (expr: { sql: string }) => Promise<string>;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(SEED);
  for (const table of DATA_TABLES) await db.pool.query(`VACUUM (ANALYZE) ${table}`);
  client = await db.pool.connect();
  // The gateway's own session settings.
  for (const [name, value] of Object.entries(READ_SESSION_SETTINGS))
    await client.query(`SET ${name} = ${value}`);
  hex = async (e) =>
    (await db.pool.query<{ h: string }>(`SELECT '0x' || encode(${e.sql}, 'hex') AS h`)).rows[0]!.h;
}, 300_000);

afterAll(async () => {
  client?.release();
  await db?.drop();
});

const used = new Set<string>();

/** Runs `run` against the planning Queryable and returns the scans of every statement, both modes. */
async function plansOf(run: (q: Pool) => Promise<unknown>) {
  const seen: { sql: string; mode: Mode; scans: Scan[] }[] = [];
  await run(planning(db.pool, client, seen));
  for (const s of seen) for (const scan of s.scans) if (scan.index) used.add(scan.index);
  return seen;
}

/**
 * Tables that grow with the chain: never read whole, nor through a bitmap (which gives up the
 * index order a page relies on). The labels and kinds of addresses (the operator's, a few rows
 * per page) may be hashed whole when they are small, as here.
 */
const LARGE_TABLES = new Set(DATA_TABLES.filter((t) => !t.startsWith('address_') || t === 'address_ids'));

/** Every plan of the shape reads these indexes, and no plan reads a large table whole. */
function expectPlans(seen: { mode: Mode; scans: Scan[] }[], indexes: string[]) {
  for (const mode of ['custom', 'generic'] as const) {
    const all = seen.filter((s) => s.mode === mode).flatMap((s) => s.scans);
    const whole = all.filter(
      (s) => (s.node === 'Seq Scan' || s.node === 'Bitmap Heap Scan') && LARGE_TABLES.has(s.relation ?? ''),
    );
    expect(whole, mode).toEqual([]);
    expect([...new Set(all.map((s) => s.index).filter(Boolean))].sort(), mode).toEqual(
      expect.arrayContaining(indexes),
    );
  }
}

/** Counts must never visit the table's rows: index-only scans of the wallet indexes. */
function expectIndexOnlyCounts(seen: { mode: Mode; scans: Scan[] }[]) {
  const onTransfers = seen.flatMap((s) => s.scans).filter((s) => s.index?.startsWith('transfers_by_'));
  expect(onTransfers.length).toBeGreaterThan(0);
  expect(onTransfers.filter((s) => s.node !== 'Index Only Scan')).toEqual([]);
}

const HEAD = FIRST + BLOCKS - 1;

describe('query plans of the data interface on 200,000 transfers (ANALYZEd)', () => {
  for (const [label, rank] of [
    ['a whale', 1],
    ['a wallet of the long tail', 15_000],
  ] as const) {
    describe(`GET /{address}/erc20/transfers, ${label}`, () => {
      const base = async () => ({ chainId: CHAIN, wallet: await hex(wallet(rank)), limit: 100 });

      it('first page, newest first: both sides by (wallet id, pos) backwards, the pin by the primary key, the total by its stored count', async () => {
        const q = await base();
        const seen = await plansOf((db) => findWalletTransfers(db, { ...q, order: 'DESC', pinHead: true }));
        expectPlans(seen, [
          'address_ids_pkey',
          'transfers_by_from',
          'transfers_by_to',
          'transfers_pkey',
          'wallet_transfer_counts_pkey',
        ]);
      });

      it('first page, oldest first, and a later page from a cursor with the pinned upper bound', async () => {
        const q = await base();
        expectPlans(await plansOf((db) => findWalletTransfers(db, { ...q, order: 'ASC', pinHead: true })), [
          'transfers_by_from',
          'transfers_by_to',
        ]);
        expectPlans(
          await plansOf((db) =>
            findWalletTransfers(db, {
              ...q,
              order: 'DESC',
              toBlock: HEAD,
              after: { blockNumber: HEAD - 500, logIndex: 7 },
            }),
          ),
          ['transfers_by_from', 'transfers_by_to'],
        );
      });

      it('block or date bounds: the page by the wallet indexes, the range total from checkpoints and index-only counts, dates by blocks_by_time', async () => {
        const q = await base();
        const from = await plansOf((db) =>
          findFirstBlockAtOrAfter(db, CHAIN, new Date((1700000000 + (HEAD - 900) * 12) * 1000)),
        );
        const to = await plansOf((db) =>
          findLastBlockAtOrBefore(db, CHAIN, new Date((1700000000 + (HEAD - 100) * 12) * 1000)),
        );
        expectPlans([...from, ...to], ['blocks_by_time']);
        for (const order of ['ASC', 'DESC'] as const) {
          expectPlans(
            await plansOf((db) =>
              findWalletTransfers(db, { ...q, order, fromBlock: HEAD - 900, toBlock: HEAD - 100 }),
            ),
            ['transfers_by_from', 'transfers_by_to'],
          );
        }
        expectPlans(await plansOf((db) => latestTransferBlock(db, CHAIN)), ['transfers_pkey']);
        const total = await plansOf((db) =>
          walletRangeTotal(db, {
            chainId: CHAIN,
            wallet: q.wallet,
            fromBlock: HEAD - 900,
            toBlock: HEAD - 100,
            pin: HEAD,
            confirmations: 12,
            checkpointBlocks: 256,
          }),
        );
        expectPlans(total, [
          'transfers_by_from',
          'transfers_by_to',
          'transfers_self',
          'wallet_transfer_checkpoints_pkey',
        ]);
        expectIndexOnlyCounts(total);
      });

      it('contract_addresses: one range scan per (side, token), the total from per-token counts or index-only counts', async () => {
        const q = await base();
        const contractAddresses = [await hex({ sql: addr('6b', '1') }), await hex({ sql: addr('6b', '30') })];
        for (const order of ['ASC', 'DESC'] as const) {
          expectPlans(
            await plansOf((db) => findWalletTransfers(db, { ...q, contractAddresses, order, pinHead: true })),
            ['transfers_by_from_token', 'transfers_by_to_token', 'balances_by_owner'],
          );
          expectPlans(
            await plansOf((db) =>
              findWalletTransfers(db, {
                ...q,
                contractAddresses,
                order,
                fromBlock: HEAD - 900,
                toBlock: HEAD,
              }),
            ),
            ['transfers_by_from_token', 'transfers_by_to_token'],
          );
        }
        const counted = await plansOf((db) =>
          countWalletTransfers(db, { ...q, contractAddresses, fromBlock: HEAD - 900, toBlock: HEAD }),
        );
        expectPlans(counted, ['transfers_by_from_token', 'transfers_by_to_token', 'transfers_self']);
        expectIndexOnlyCounts(counted);
        expectPlans(
          await plansOf((db) => walletTransferTotalAtHead(db, { ...q, contractAddresses, toBlock: HEAD })),
          ['transfers_pkey', 'balances_by_owner'],
        );
      });
    });
  }

  it('GET /{address}/logs: a range scan of logs_by_address_topic0, the pin by the primary key', async () => {
    const address = await hex({ sql: addr('6b', '2') });
    const topic0 = `0x${TRANSFER.slice(2)}`;
    const q = { chainId: CHAIN, address, topic0, limit: 100 };
    expectPlans(await plansOf((db) => findContractLogs(db, { ...q, order: 'DESC', pinHead: true })), [
      'logs_by_address_topic0',
      'logs_pkey',
    ]);
    expectPlans(
      await plansOf((db) =>
        findContractLogs(db, {
          ...q,
          order: 'ASC',
          fromBlock: HEAD - 500,
          toBlock: HEAD,
          after: { blockNumber: HEAD - 400, logIndex: 3 },
        }),
      ),
      ['logs_by_address_topic0'],
    );
    expectPlans(
      await plansOf((db) =>
        findContractLogs(db, { ...q, order: 'DESC', fromBlock: HEAD - 7, toBlock: HEAD - 7 }),
      ),
      ['logs_by_address_topic0'],
    );
  });

  it('GET /erc20/{token}/owners: balances_by_token, both orders, from a cursor', async () => {
    const token = await hex({ sql: addr('6b', '1') });
    const q = { chainId: CHAIN, token, limit: 100 };
    for (const order of ['ASC', 'DESC'] as const) {
      expectPlans(await plansOf((db) => findTokenOwners(db, { ...q, order })), [
        'balances_by_token',
        'tokens_pkey',
      ]);
      expectPlans(
        await plansOf((db) =>
          findTokenOwners(db, { ...q, order, after: { balance: 500n, ownerAddress: `0x${'0'.repeat(40)}` } }),
        ),
        ['balances_by_token'],
      );
    }
  });

  it('every index of transfers and logs is read by one of the shapes above', async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid IN ('transfers'::regclass, 'logs'::regclass) ORDER BY 1`,
    );
    expect(rows.map((r) => r.name).filter((name) => !used.has(name))).toEqual([]);
  });
});
