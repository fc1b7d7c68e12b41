// Builds (or reuses) the data-API benchmark database `tributary_bench` on DATABASE_URL's server:
// BENCH_ROWS (10,000,000) ERC20 transfers with Zipf-like skew over BENCH_WALLETS (200,000)
// wallets and BENCH_TOKENS (2,000) tokens, their Transfer logs (the newest BENCH_LOG_ROWS only, if set), the blocks, token metadata, and
// balances and per-(token, owner) and per-wallet transfer counts computed from the transfers. Generated server-side (INSERT ... SELECT generate_series),
// indexes dropped during the load and rebuilt after it, then VACUUM ANALYZE. The parameters are
// recorded in bench_seed: a later run with the same parameters reuses the database as it is.
// Run: pnpm --filter @tributary/gateway bench:seed   (BENCH_RESEED=true rebuilds anyway; it prints
// each table's size and bytes per row, all indexes included, after seeding or with BENCH_DESCRIBE=true)
import { migrate } from '@tributary/db';
import { measureTableBytes } from '@tributary/testkit/bench';
import pg from 'pg';
import {
  BLOCK_SECONDS,
  CHAIN_ID,
  FIRST_BLOCK_TIME,
  type SeedParams,
  TOKEN_PREFIX,
  TRANSFER_TOPIC0,
  WALLET_PREFIX,
  benchDatabaseName,
  seedParams,
} from './datasetShape.ts';

const DATA_TABLES = [
  'blocks',
  'address_ids',
  'transfers',
  'logs',
  'tokens',
  'balances',
  'wallet_transfer_counts',
];
const CHUNK = 500_000;
/** The tables whose bytes per row the data-interface benchmark reports (address_ids: the wallet index keys). */
export const BYTES_TABLES = ['transfers', 'logs', 'address_ids'];

export function benchDatabaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const say = (line: string) => console.log(`[seed ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-seed' });
  await client.connect();
  return client;
}

/** The recorded parameters of an existing, completely seeded bench database; null otherwise. */
async function existingSeed(benchUrl: string): Promise<SeedParams | null> {
  const client = await connect(benchUrl).catch(() => null);
  if (!client) return null;
  try {
    const { rows } = await client.query<{ params: SeedParams }>(
      `SELECT params FROM bench_seed ORDER BY seeded_at DESC LIMIT 1`,
    );
    return rows[0]?.params ?? null;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  say(`${label} ...`);
  const result = await fn();
  say(`${label}: ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return result;
}

interface IndexDef {
  table: string;
  name: string;
  create: string;
  constraint: boolean;
}

/** Every index (primary keys included) of the data tables, as the migrations created them. */
async function dataIndexes(db: pg.Client): Promise<IndexDef[]> {
  const { rows } = await db.query<{
    tbl: string;
    idx: string;
    def: string;
    conname: string | null;
    condef: string | null;
    options: string[] | null;
  }>(
    `SELECT c.relname AS tbl, i.relname AS idx, pg_get_indexdef(i.oid) AS def,
            con.conname, pg_get_constraintdef(con.oid) AS condef, i.reloptions AS options
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class c ON c.oid = x.indrelid
       LEFT JOIN pg_constraint con ON con.conindid = i.oid AND con.contype IN ('p', 'u')
      WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace
      ORDER BY c.relname, con.conname NULLS LAST, i.relname`,
    [DATA_TABLES],
  );
  return rows.map((r) => ({
    table: r.tbl,
    name: r.idx,
    // pg_get_constraintdef leaves out the index's storage options (a fillfactor): given back here.
    create: r.conname
      ? `ALTER TABLE ${r.tbl} ADD CONSTRAINT ${r.conname} ${r.condef}${r.options ? ` WITH (${r.options.join(', ')})` : ''}`
      : r.def,
    constraint: r.conname !== null,
  }));
}

/** Loads `total` rows in chunks of CHUNK through `insertChunk(from, to)`, printing rate and ETA. */
async function chunked(
  label: string,
  total: number,
  insertChunk: (from: number, to: number) => Promise<void>,
) {
  const start = Date.now();
  for (let from = 0; from < total; from += CHUNK) {
    const to = Math.min(total, from + CHUNK);
    await insertChunk(from, to);
    const secs = (Date.now() - start) / 1000;
    const rate = to / secs;
    say(
      `${label}: ${to.toLocaleString('en')} / ${total.toLocaleString('en')} rows, ${Math.round(rate).toLocaleString('en')} rows/s, ETA ${Math.round((total - to) / rate)} s`,
    );
  }
}

async function seed(db: pg.Client, p: SeedParams): Promise<void> {
  const blocks = Math.ceil(p.rows / p.transfersPerBlock);
  const tpb = p.transfersPerBlock;
  // Session settings for the load only (the server's settings are left alone).
  await db.query(`SET synchronous_commit = off`);
  await db.query(`SET maintenance_work_mem = '1GB'`);
  await db.query(`SET work_mem = '1GB'`);
  await db.query(`SET jit = off`);
  await db.query(`SELECT setseed(0.42)`);

  const indexes = await dataIndexes(db);
  for (const ix of indexes) {
    await db.query(
      ix.constraint ? `ALTER TABLE ${ix.table} DROP CONSTRAINT ${ix.name}` : `DROP INDEX ${ix.name}`,
    );
  }
  say(`dropped ${indexes.length} indexes of ${DATA_TABLES.join(', ')}`);

  const blockHash = (n: string) => `sha256('\\x62'::bytea || int8send(${n}))`;
  await timed(`blocks (${blocks.toLocaleString('en')})`, () =>
    db.query(
      `INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, confirmed)
       SELECT ${CHAIN_ID}, b, ${blockHash('b')}, ${blockHash('b - 1')},
              to_timestamp(${FIRST_BLOCK_TIME / 1000} + (b - ${p.firstBlock}) * ${BLOCK_SECONDS}), true
         FROM generate_series(${p.firstBlock}::bigint, ${p.firstBlock + blocks - 1}::bigint) b`,
    ),
  );

  const addr = (prefix: number, rank: string) =>
    `substring(sha256('\\x${prefix.toString(16)}'::bytea || int8send(${rank})) from 1 for 20)`;
  // Address ids (address_ids, the key of the wallet indexes) from the ranks: a wallet's id is its
  // rank, a token's the number of wallets plus its rank; the sequence continues after them.
  await timed(`address ids (${(p.wallets + p.tokens - 2).toLocaleString('en')})`, async () => {
    await db.query(
      `INSERT INTO address_ids (chain_id, address, id)
       SELECT ${CHAIN_ID}, ${addr(WALLET_PREFIX, 'r')}, r FROM generate_series(1::bigint, ${p.wallets - 1}::bigint) r
       UNION ALL
       SELECT ${CHAIN_ID}, ${addr(TOKEN_PREFIX, 'k')}, ${p.wallets} + k FROM generate_series(1::bigint, ${p.tokens - 1}::bigint) k`,
    );
    await db.query(
      `SELECT setval(pg_get_serial_sequence('address_ids', 'id'), (SELECT max(id) FROM address_ids))`,
    );
  });

  // One statement per chunk writes the transfers and, through RETURNING, their Transfer logs.
  // Senders: Zipf over the wallets (whales send a lot); receivers: half Zipf, half uniform (the
  // long tail receives); tokens: Zipf over the tokens. Two logs per transaction.
  const pad = `'\\x000000000000000000000000'::bytea`;
  const two64 = '18446744073709551616';
  await chunked('transfers + logs', p.rows, async (from, to) => {
    await db.query(
      `WITH g AS (
         SELECT i,
                least(${p.wallets - 1}, floor(power(${p.wallets}, random())))::bigint AS fr,
                CASE WHEN random() < 0.5 THEN least(${p.wallets - 1}, floor(power(${p.wallets}, random())))::bigint
                     ELSE 1 + floor(random() * ${p.wallets - 1})::bigint END AS tr,
                least(${p.tokens - 1}, floor(power(${p.tokens}, random())))::bigint AS kr,
                floor(power(random(), 4) * 1048576)::numeric AS hi,
                floor(random() * 4294967296)::numeric * 4294967296 + floor(random() * 4294967296)::numeric AS lo
           FROM generate_series(${from}::bigint, ${to - 1}::bigint) i
       ), t AS (
         INSERT INTO transfers (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                                transaction_index, token_id, from_id, to_id, token_address, from_address,
                                to_address, value)
         SELECT ${CHAIN_ID}, ${p.firstBlock} + i / ${tpb}, (i % ${tpb})::int, ${blockHash(`${p.firstBlock} + i / ${tpb}`)},
                to_timestamp(${FIRST_BLOCK_TIME / 1000} + (i / ${tpb}) * ${BLOCK_SECONDS}),
                sha256('\\x74'::bytea || int8send(i / 2)), ((i % ${tpb}) / 2)::int,
                ${p.wallets} + kr, fr, tr, ${addr(TOKEN_PREFIX, 'kr')}, ${addr(WALLET_PREFIX, 'fr')}, ${addr(WALLET_PREFIX, 'tr')},
                hi * ${two64} + lo
           FROM g
         RETURNING chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                   transaction_index, token_id, token_address, from_address, to_address, value
       )
       INSERT INTO logs (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                         transaction_index, address_id, address, topic0, topic1, topic2, topic3, data)
       SELECT chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash, transaction_index,
              token_id, token_address, '\\x${TRANSFER_TOPIC0.slice(2)}'::bytea, ${pad} || from_address, ${pad} || to_address, NULL,
              '\\x00000000000000000000000000000000'::bytea
                || int8send(floor(value / ${two64})::bigint)
                || int8send((CASE WHEN value % ${two64} >= 9223372036854775808 THEN value % ${two64} - ${two64}
                                  ELSE value % ${two64} END)::bigint)
         FROM t
        WHERE (block_number - ${p.firstBlock}) * ${tpb} + log_index >= ${p.rows - p.logRows}`,
    );
  });

  await timed(`tokens (${p.tokens - 1})`, () =>
    db.query(
      `INSERT INTO tokens (chain_id, address, name, symbol, decimals, total_supply, read_at_block, logo,
                           possible_spam, verified)
       SELECT ${CHAIN_ID}, ${addr(TOKEN_PREFIX, 'k')}, 'Bench Token ' || k, 'BT' || k,
              CASE WHEN k % 10 = 3 THEN 6 WHEN k % 10 = 7 THEN 8 ELSE 18 END, NULL, ${p.firstBlock},
              CASE WHEN k <= 500 THEN 'https://logos.tributary.invalid/' || k || '.png' END,
              k > 1800 AND k % 3 = 0, k <= 200
         FROM generate_series(1::bigint, ${p.tokens - 1}::bigint) k`,
    ),
  );

  // Net received per (token, owner); the window has no opening balances, so only positive nets
  // are holders (the others keep a 0 balance). Every party of a transfer has a row with its
  // transfer count, as the projector keeps them (a transfer to oneself counts once).
  await timed('balances and transfer counts from transfers', () =>
    db.query(
      `INSERT INTO balances (chain_id, token_address, owner_address, balance, transfer_count)
       SELECT ${CHAIN_ID}, token_address, owner, greatest(sum(delta), 0), sum(n)
         FROM (SELECT token_address, to_address AS owner, value AS delta,
                      CASE WHEN to_address = from_address THEN 0 ELSE 1 END AS n FROM transfers
               UNION ALL
               SELECT token_address, from_address, -value, 1 FROM transfers) d
        GROUP BY token_address, owner`,
    ),
  );
  await timed('wallet transfer counts from balances', () =>
    db.query(
      `INSERT INTO wallet_transfer_counts (chain_id, wallet, transfers)
       SELECT chain_id, owner_address, sum(transfer_count) FROM balances GROUP BY chain_id, owner_address`,
    ),
  );
  await timed('token total supplies', () =>
    db.query(
      `UPDATE tokens SET total_supply = s.total
         FROM (SELECT token_address, sum(balance) AS total FROM balances GROUP BY token_address) s
        WHERE tokens.chain_id = ${CHAIN_ID} AND tokens.address = s.token_address`,
    ),
  );
  await timed('address kinds and labels', async () => {
    await db.query(
      `INSERT INTO address_kinds (chain_id, address, is_contract)
       SELECT ${CHAIN_ID}, address, true FROM tokens WHERE chain_id = ${CHAIN_ID}
       UNION ALL
       SELECT ${CHAIN_ID}, ${addr(WALLET_PREFIX, 'r')}, r % 2 = 1 FROM generate_series(1::bigint, 1000::bigint) r
       ON CONFLICT DO NOTHING`,
    );
    await db.query(
      `INSERT INTO address_labels (chain_id, address, label)
       SELECT ${CHAIN_ID}, ${addr(WALLET_PREFIX, 'r')}, 'Bench Exchange ' || r FROM generate_series(1::bigint, 100::bigint) r
       ON CONFLICT DO NOTHING`,
    );
  });

  for (const ix of indexes) {
    await timed(`index ${ix.name}`, () => db.query(ix.create));
  }
  for (const table of [...DATA_TABLES, 'address_kinds', 'address_labels']) {
    // VACUUM sets the visibility map, so the count queries can be index-only as in a settled table.
    await timed(`vacuum analyze ${table}`, () => db.query(`VACUUM (ANALYZE) ${table}`));
  }
}

async function describeDatabase(url: string): Promise<void> {
  const db = await connect(url);
  try {
    await describe(db);
  } finally {
    await db.end();
  }
}

async function describe(db: pg.Client): Promise<void> {
  const sizes = await db.query<{ relname: string; rows: string; size: string }>(
    `SELECT c.relname, c.reltuples::bigint AS rows, pg_size_pretty(pg_total_relation_size(c.oid)) AS size
       FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind = 'r' ORDER BY c.relname`,
    [[...DATA_TABLES, 'address_kinds', 'address_labels']],
  );
  for (const r of sizes.rows)
    say(`table ${r.relname}: ~${Number(r.rows).toLocaleString('en')} rows, ${r.size}`);
  const bytes = await measureTableBytes(db, BYTES_TABLES);
  for (const [table, b] of Object.entries(bytes)) {
    say(`${table}: ${b.bytesPerRow} bytes per row, all indexes included (${JSON.stringify(b.indexBytes)})`);
  }
  const holders = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM balances GROUP BY token_address ORDER BY 1 DESC LIMIT 5`,
  );
  say(`holders of the 5 largest tokens: ${holders.rows.map((r) => r.n).join(', ')}`);
}

/** jsonb does not keep key order: compare field by field. */
function sameParams(a: SeedParams, b: SeedParams): boolean {
  const keys = Object.keys(b) as (keyof SeedParams)[];
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}

/**
 * The gateway serves only chains a follower has checkpointed: the seeded chain gets a checkpoint at
 * its last block, as a follower's would be (idempotent: reused databases seeded before this get it too).
 */
async function markChainFollowed(benchUrl: string): Promise<void> {
  const db = await connect(benchUrl);
  try {
    await db.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash)
       SELECT chain_id, number, hash FROM blocks WHERE chain_id = $1 ORDER BY number DESC LIMIT 1
       ON CONFLICT (chain_id) DO NOTHING`,
      [CHAIN_ID],
    );
  } finally {
    await db.end();
  }
}

export async function seedDataset(baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const params = seedParams(env);
  const name = benchDatabaseName(env);
  const benchUrl = benchDatabaseUrl(baseUrl, name);
  const prior = await existingSeed(benchUrl);
  if (prior && sameParams(prior, params) && env['BENCH_RESEED'] !== 'true') {
    say(`reusing ${name}: already seeded with ${JSON.stringify(params)}`);
    // Migrations added since the seed backfill their own columns and build their own indexes: far
    // quicker than a new seed.
    const { applied } = await migrate(benchUrl, say);
    if (applied.length > 0) {
      const db = await connect(benchUrl);
      try {
        for (const table of DATA_TABLES) {
          // Sets the visibility map again after the backfill, for index-only scans.
          await timed(`vacuum analyze ${table}`, () => db.query(`VACUUM (ANALYZE) ${table}`));
        }
      } finally {
        await db.end();
      }
    }
    await markChainFollowed(benchUrl);
    if (env['BENCH_DESCRIBE'] === 'true') await describeDatabase(benchUrl);
    return benchUrl;
  }
  const admin = await connect(baseUrl);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  say(`created ${name}; seeding ${JSON.stringify(params)}`);
  await migrate(benchUrl, say);
  const db = await connect(benchUrl);
  const start = Date.now();
  try {
    await seed(db, params);
    const seconds = (Date.now() - start) / 1000;
    await db.query(`CREATE TABLE bench_seed (params jsonb NOT NULL, seconds numeric NOT NULL,
                    seeded_at timestamptz NOT NULL DEFAULT now())`);
    await db.query(`INSERT INTO bench_seed (params, seconds) VALUES ($1, $2)`, [
      JSON.stringify(params),
      seconds,
    ]);
    say(`seeded in ${seconds.toFixed(0)} s`);
    await describe(db);
  } finally {
    await db.end();
  }
  await markChainFollowed(benchUrl);
  return benchUrl;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await seedDataset(process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary');
}
