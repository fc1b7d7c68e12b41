// For `npm start`: are the devnets that anvil serves the chains PostgreSQL indexed? For each devnet,
// compares block 0's hash with the genesis hash its follower stored with its checkpoint (a checkpoint
// stored before that column existed: its block's hash). When a devnet is new (an anvil started without
// its state file, or from another one), the indexed data of its chain id belongs to a chain that no
// longer exists:
// - no devnet kept: drops and recreates the database and deletes the Kafka topics and the consumer
//   groups that read them, so that every service starts over;
// - another devnet kept: deletes the new devnets' rows only (every table keyed by chain_id, their
//   deliveries, their start blocks in the streams). A kept devnet cannot be followed again from its
//   first block: anvil keeps no historical state for the blocks it loaded from its state file. Kafka's
//   block topic stays (its consumers have committed past the old chain's events).
// Redis' webhook queue is cleared by the caller (redis-cli).
//   DATABASE_URL KAFKA_BROKERS DEVNETS=chainId=url,... [KAFKA_TOPIC_PREFIX] node infra/dev/devnet-data.mjs
//   (without DEVNETS: the one devnet CHAIN_ID (31337) at RPC_URL)
// Says what it found on stderr; prints `kept`, `fresh` (nothing indexed yet) or `reset` on stdout.
// When it cannot tell (a node or a server that does not answer), its last stderr line says why and
// it exits 1.
import { createRequire } from 'node:module';

// pg and kafkajs are dependencies of @tributary/testkit; resolved from there (this script sits outside any package).
const require = createRequire(new URL('../../packages/testkit/package.json', import.meta.url));
const pg = require('pg');
const { Kafka, logLevel } = require('kafkajs');

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const databaseUrl = env('DATABASE_URL');
const brokers = env('KAFKA_BROKERS').split(',');
const parseDevnets = () =>
  (process.env.DEVNETS || `${env('CHAIN_ID', '31337')}=${env('RPC_URL')}`).split(',').map((entry) => {
    const m = /^(\d+)=(\S+)$/.exec(entry.trim());
    if (!m) throw new Error(`DEVNETS entry "${entry}" is not chainId=url`);
    return { chainId: Number(m[1]), rpcUrl: m[2] };
  });
const prefix = env('KAFKA_TOPIC_PREFIX', '');
// As packages/schema's TOPICS.
const topics = [`${prefix}evm.blocks.v1`, `${prefix}streams.changes.v1`];
const say = (line) => process.stderr.write(`[start] ${line}\n`);

/** An error and its causes on one line ("fetch failed: connect ECONNREFUSED 127.0.0.1:1"). */
function describe(err) {
  const parts = [];
  let e = err;
  while (e && parts.length < 4) {
    const text = e instanceof Error ? e.message || e.code || e.name : String(e);
    if (!parts.includes(text)) parts.push(text);
    e = e instanceof AggregateError ? e.errors?.[0] : e.cause;
  }
  return parts.join(': ');
}

/** The URL without its password, to be shown. */
function shown(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

async function blockHash(rpcUrl, number) {
  try {
    return await fetchBlockHash(rpcUrl, number);
  } catch (err) {
    throw new Error(`the node at ${shown(rpcUrl)} did not give block ${number}: ${describe(err)}`);
  }
}

async function fetchBlockHash(rpcUrl, number) {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBlockByNumber',
      params: [`0x${number.toString(16)}`, false],
    }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`eth_getBlockByNumber: ${body.error.message}`);
  return body.result?.hash ?? null;
}

async function connect(url) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`PostgreSQL at ${shown(url)} refused: ${describe(err)}`);
  }
  return client;
}

async function indexedChain(chainId) {
  const client = await connect(databaseUrl);
  try {
    const { rows } = await client.query(
      `SELECT block_number, '0x' || encode(block_hash, 'hex') AS block_hash,
              '0x' || encode(genesis_hash, 'hex') AS genesis_hash
       FROM follower_checkpoints WHERE chain_id = $1`,
      [chainId],
    );
    return rows[0] ?? null;
  } finally {
    await client.end();
  }
}

async function recreateDatabase() {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = await connect(url.toString());
  try {
    const quoted = `"${name.replaceAll('"', '""')}"`;
    await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoted}`);
  } finally {
    await client.end();
  }
}

/** Deletes the block and stream-change topics and every consumer group with offsets on them. */
async function resetKafka() {
  const kafka = new Kafka({ clientId: 'tributary-devnet-data', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = (await admin.listTopics()).filter((t) => topics.includes(t));
    const groups = [];
    if (existing.length > 0) {
      for (const { groupId } of (await admin.listGroups()).groups) {
        const offsets = await admin.fetchOffsets({ groupId, topics: existing });
        if (offsets.some((t) => t.partitions.some((p) => Number(p.offset) >= 0))) groups.push(groupId);
      }
    }
    if (groups.length > 0) await admin.deleteGroups(groups);
    if (existing.length > 0) await admin.deleteTopics({ topics: existing, timeout: 30_000 });
    return { topics: existing, groups };
  } finally {
    await admin.disconnect();
  }
}

/** `kept`, `fresh` or `new` for one devnet, said on stderr. */
async function compare({ chainId, rpcUrl }) {
  const name = `devnet ${chainId}`;
  const genesis = await blockHash(rpcUrl, 0);
  if (!genesis) throw new Error(`${rpcUrl} returned no genesis block`);
  const indexed = await indexedChain(chainId);
  if (!indexed) {
    say(`${name}: nothing indexed yet; following it (genesis ${genesis}) from its first block`);
    return 'fresh';
  }
  const same = indexed.genesis_hash
    ? indexed.genesis_hash === genesis
    : (await blockHash(rpcUrl, Number(indexed.block_number))) === indexed.block_hash;
  if (same) {
    say(`${name}: kept (genesis ${genesis}); the indexed data continues from block ${indexed.block_number}`);
    return 'kept';
  }
  const was = indexed.genesis_hash ? `the chain with genesis ${indexed.genesis_hash}` : 'another chain';
  say(`${name}: new (genesis ${genesis}; PostgreSQL held ${was}, up to block ${indexed.block_number})`);
  return 'new';
}

/** Deletes what PostgreSQL holds of the given chains (their follower state, query tables, deliveries). */
async function forgetChains(chainIds) {
  const client = await connect(databaseUrl);
  try {
    const { rows } = await client.query(
      `SELECT table_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND column_name = 'chain_id' ORDER BY table_name`,
    );
    await client.query('BEGIN');
    for (const { table_name: table } of rows) {
      await client.query(`DELETE FROM "${table.replaceAll('"', '""')}" WHERE chain_id = ANY($1::bigint[])`, [
        chainIds,
      ]);
    }
    for (const id of chainIds) {
      await client.query('UPDATE streams SET start_blocks = start_blocks - $1::text', [String(id)]);
    }
    await client.query('COMMIT');
    return rows.map((r) => r.table_name);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

async function main() {
  const devnets = parseDevnets();
  const found = [];
  for (const devnet of devnets) found.push(await compare(devnet));
  const renewed = devnets.filter((_, i) => found[i] === 'new').map((d) => d.chainId);
  if (renewed.length > 0 && found.includes('kept')) {
    const tables = await forgetChains(renewed);
    say(
      `devnet: the data of chain ${renewed.join(', ')} deleted (${tables.join(', ')}); the kept devnets continue`,
    );
    return 'reset';
  }
  if (renewed.length > 0) {
    say('devnet: starting the data of every devnet afresh');
    await recreateDatabase();
    let kafka;
    try {
      kafka = await resetKafka();
    } catch (err) {
      throw new Error(`Kafka at ${brokers.join(',')} could not delete the topics: ${describe(err)}`);
    }
    say(
      `devnet: database recreated; Kafka topics deleted: ${kafka.topics.join(', ') || 'none'}; consumer groups deleted: ${kafka.groups.join(', ') || 'none'}`,
    );
    return 'reset';
  }
  return found.includes('kept') ? 'kept' : 'fresh';
}

try {
  console.log(await main());
} catch (err) {
  say(`devnet data: ${describe(err)}`);
  process.exit(1);
}
