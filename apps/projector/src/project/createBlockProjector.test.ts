import type { Pool } from '@tributary/db';
import type { BlockEvent, FullBlockEvent } from '@tributary/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { migratedDatabase } from '../testing/migratedDatabase.ts';

// Blocks seen for the first time are COPYed straight into the indexed tables; blocks already there
// go through staging + ON CONFLICT. Whatever the mix, the tables must end up identical.
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const ZERO = a(0);
const TOKEN = a(0xbeef);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as `0x${string}`;
const topic = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;

/** A block of Transfer logs: [from, to, value] of TOKEN, or [from, to, value, token]. */
function block(
  n: number,
  transfers: [string, string, bigint, string?][],
  type: 'new' | 'confirmed' = 'confirmed',
) {
  const logs = transfers.map(([from, to, value, token], i) => ({
    logIndex: i,
    transactionHash: h(1000 + n),
    transactionIndex: 0,
    address: (token ?? TOKEN) as `0x${string}`,
    data: h(Number(value)),
    topics: [TRANSFER, topic(from), topic(to)],
  }));
  const event: FullBlockEvent = {
    type,
    v: 2,
    chainId: 31337,
    block: { number: n, hash: h(n + 1), parentHash: h(n), timestamp: 1_700_000_000 + n },
    transactions: [],
    logs,
    internalTransactions: [],
    transfers: transfers.map(([from, to, value], i) => ({
      logIndex: i,
      from: from as `0x${string}`,
      to: to as `0x${string}`,
      value: value.toString(),
    })),
    tokens:
      n === 0
        ? [{ address: TOKEN, name: 'T', symbol: 'T', decimals: 0, totalSupply: '0', readAtBlock: 0 }]
        : [],
    tokenInfo: [],
    accounts: [],
    hasTransactions: false,
    hasInternalTransactions: false,
  };
  return event;
}

const alice = a(0xa1);
const bob = a(0xb0);
const chain: BlockEvent[] = [
  block(0, []),
  block(1, [[ZERO, alice, 100n]]),
  block(2, [
    [alice, bob, 30n],
    [bob, bob, 5n],
  ]),
  block(3, [[bob, ZERO, 10n]], 'new'),
  { ...block(3, [[bob, ZERO, 10n]]), type: 'confirmed' },
];

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

async function freshDatabase(poolSize = 2) {
  const { pool, projector, drop } = await migratedDatabase(poolSize);
  drops.push(drop);
  return { pool, projector };
}

async function tables(pool: Pool) {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    blocks: await q('SELECT number, confirmed FROM blocks ORDER BY number'),
    logs: await q(
      `SELECT block_number, log_index, encode(topic2, 'hex') AS t2, encode(data, 'hex') AS d FROM logs ORDER BY 1, 2`,
    ),
    transfers: await q(
      `SELECT block_number, log_index, encode(from_address, 'hex') AS f, encode(to_address, 'hex') AS t, value::text
       FROM transfers ORDER BY 1, 2`,
    ),
    // Owners: the zero address has a row for its transfer count only (balance 0), never an owner.
    balances: await q(
      `SELECT encode(owner_address, 'hex') AS owner, balance::text FROM balances
        WHERE owner_address <> '\\x${ZERO.slice(2)}' ORDER BY 1`,
    ),
    counts: await storedCounts(pool),
    walletCounts: await storedWalletCounts(pool),
    supply: await q(`SELECT total_supply::text FROM tokens`),
  };
}

/** The stored per-(token, owner) transfer counts, zero address included. */
async function storedCounts(pool: Pool) {
  const { rows } = await pool.query<{ token: string; owner: string; n: string }>(
    `SELECT '0x' || encode(token_address, 'hex') AS token, '0x' || encode(owner_address, 'hex') AS owner,
            transfer_count::text AS n
       FROM balances WHERE transfer_count <> 0 ORDER BY 1, 2`,
  );
  return rows;
}

/** The same counts taken from the transfer rows: each party once, a transfer to oneself once. */
async function countedFromTransfers(pool: Pool) {
  const { rows } = await pool.query<{ token: string; owner: string; n: string }>(
    `SELECT '0x' || encode(token_address, 'hex') AS token, '0x' || encode(owner, 'hex') AS owner, count(*)::text AS n
       FROM (SELECT token_address, from_address AS owner FROM transfers
             UNION ALL
             SELECT token_address, to_address FROM transfers WHERE to_address <> from_address) t
      GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  return rows;
}

/** The stored per-wallet transfer counts (all tokens), zero address included. */
async function storedWalletCounts(pool: Pool) {
  const { rows } = await pool.query<{ wallet: string; n: string }>(
    `SELECT '0x' || encode(wallet, 'hex') AS wallet, transfers::text AS n
       FROM wallet_transfer_counts WHERE transfers <> 0 ORDER BY 1`,
  );
  return rows;
}

/** The same counts taken from the transfer rows: each party once, a transfer to oneself once. */
async function walletCountsFromTransfers(pool: Pool) {
  const { rows } = await pool.query<{ wallet: string; n: string }>(
    `SELECT '0x' || encode(owner, 'hex') AS wallet, count(*)::text AS n
       FROM (SELECT from_address AS owner FROM transfers
             UNION ALL
             SELECT to_address FROM transfers WHERE to_address <> from_address) t
      GROUP BY 1 ORDER BY 1`,
  );
  return rows;
}

const removed = (n: number): BlockEvent => ({
  type: 'removed',
  v: 2,
  chainId: 31337,
  block: { number: n, hash: h(n + 1), parentHash: h(n), timestamp: 1_700_000_000 + n },
});

describe('createBlockProjector', () => {
  it('gives the same tables whether blocks arrive fresh, replayed or overlapping', async () => {
    const once = await freshDatabase();
    const outcome = await once.projector.projectBatch(chain);
    expect(outcome).toEqual({ blocks: 4, logs: 4, transfers: 4, removedBlocks: 0 });
    const expected = await tables(once.pool);
    expect(expected.balances).toEqual([
      { owner: alice.slice(2), balance: '70' },
      { owner: bob.slice(2), balance: '20' },
    ]);
    expect(expected.supply).toEqual([{ total_supply: '90' }]);
    expect(expected.blocks.map((b) => b.confirmed)).toEqual([true, true, true, true]);

    // Replays of everything, one block at a time and in overlapping batches, change nothing.
    for (const e of chain) await once.projector.projectBatch([e]);
    await once.projector.projectBatch(chain.slice(1));
    expect(await tables(once.pool)).toEqual(expected);

    // Old and new blocks in one batch.
    const mixed = await freshDatabase();
    await mixed.projector.projectBatch(chain.slice(0, 2));
    const out = await mixed.projector.projectBatch(chain);
    expect(out).toEqual({ blocks: 2, logs: 3, transfers: 3, removedBlocks: 0 });
    expect(await tables(mixed.pool)).toEqual(expected);
  });

  it('falls back to the conflict-tolerant path when rows of a new block already exist', async () => {
    const db = await freshDatabase();
    await db.projector.projectBatch(chain.slice(0, 2));
    // A transfer row at block 2 without its block row (written by something else than the projector).
    await db.pool.query(
      `INSERT INTO transfers (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                             transaction_index, token_id, from_id, to_id, token_address, from_address, to_address, value)
       SELECT chain_id, 2, 1, '\\x${h(3).slice(2)}', block_timestamp, transaction_hash, transaction_index,
              token_id, from_id, to_id, token_address, from_address, to_address, 5 FROM transfers WHERE block_number = 1`,
    );
    const out = await db.projector.projectBatch(chain.slice(2));
    expect(out).toEqual({ blocks: 2, logs: 3, transfers: 2, removedBlocks: 0 });
    const t = await tables(db.pool);
    expect(t.logs).toHaveLength(4);
    // The pre-existing row at (2, 1) stays; only the transfers actually inserted move balances.
    expect(t.balances).toEqual([
      { owner: alice.slice(2), balance: '70' },
      { owner: bob.slice(2), balance: '20' },
    ]);
  });

  it('keeps per-(token, owner) transfer counts equal to the transfer rows: mints, burns, self-transfers, replays, removals', async () => {
    const db = await freshDatabase();
    await db.projector.projectBatch(chain);
    const counts = await storedCounts(db.pool);
    // alice: the mint and the transfer to bob; bob: from alice, to himself (once), the burn;
    // the zero address: the mint and the burn (counts, but no balance row among the owners).
    expect(counts).toEqual([
      { token: TOKEN, owner: ZERO, n: '2' },
      { token: TOKEN, owner: alice, n: '2' },
      { token: TOKEN, owner: bob, n: '3' },
    ]);
    expect(counts).toEqual(await countedFromTransfers(db.pool));
    expect(await storedWalletCounts(db.pool)).toEqual(await walletCountsFromTransfers(db.pool));
    const zero = await db.pool.query(
      `SELECT balance::text FROM balances WHERE owner_address = '\\x${ZERO.slice(2)}'`,
    );
    expect(zero.rows).toEqual([{ balance: '0' }]);

    // A replay (the careful path: the blocks are already there) counts nothing twice.
    await db.projector.projectBatch(chain);
    await db.projector.projectBatch(chain.slice(2, 4));
    expect(await storedCounts(db.pool)).toEqual(counts);

    // Removing block 2 (alice -> bob, bob -> bob) takes its transfers off both sides, once; removing it
    // again changes nothing.
    await db.projector.projectBatch([removed(3), removed(2)]);
    await db.projector.projectBatch([removed(2)]);
    const afterRemoval = [
      { token: TOKEN, owner: ZERO, n: '1' },
      { token: TOKEN, owner: alice, n: '1' },
    ];
    expect(await storedCounts(db.pool)).toEqual(afterRemoval);
    expect(await countedFromTransfers(db.pool)).toEqual(afterRemoval);
    expect(await storedWalletCounts(db.pool)).toEqual(await walletCountsFromTransfers(db.pool));

    expect((await tables(db.pool)).balances).toEqual([
      { owner: alice.slice(2), balance: '100' },
      { owner: bob.slice(2), balance: '0' },
    ]);
    // Block 3's burn of 10 is taken back from the total supply (90 -> 100).
    expect((await tables(db.pool)).supply).toEqual([{ total_supply: '100' }]);

    // A new branch at height 2 (a fresh block: the COPY path) counts again.
    const branchBlock = (n: number, hash: number, transfers: [string, string, bigint][]) =>
      ({
        ...block(n, transfers),
        block: { number: n, hash: h(hash), parentHash: h(n), timestamp: 1 },
      }) as BlockEvent;
    await db.projector.projectBatch([branchBlock(2, 202, [[alice, bob, 1n]])]);
    expect(await storedCounts(db.pool)).toEqual(await countedFromTransfers(db.pool));
    expect(await storedWalletCounts(db.pool)).toEqual(await walletCountsFromTransfers(db.pool));
    expect(await storedCounts(db.pool)).toEqual([
      { token: TOKEN, owner: ZERO, n: '1' },
      { token: TOKEN, owner: alice, n: '2' },
      { token: TOKEN, owner: bob, n: '1' },
    ]);

    // Block 3 through the conflict-tolerant path (a stray row at (3, 2), written by something
    // else, makes the direct COPY fail): only the rows inserted count, a self-transfer once.
    await db.pool.query(
      `INSERT INTO transfers (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                             transaction_index, token_id, from_id, to_id, token_address, from_address, to_address, value)
       SELECT chain_id, 3, 2, '\\x${h(303).slice(2)}', block_timestamp, transaction_hash, transaction_index,
              token_id, from_id, to_id, token_address, from_address, to_address, 7 FROM transfers WHERE block_number = 2`,
    );
    await db.projector.projectBatch([
      branchBlock(3, 303, [
        [bob, bob, 1n],
        [alice, ZERO, 4n],
        [bob, alice, 9n],
      ]),
    ]);
    await db.pool.query('DELETE FROM transfers WHERE block_number = 3 AND log_index = 2');
    expect(await storedCounts(db.pool)).toEqual(await countedFromTransfers(db.pool));
    expect(await storedWalletCounts(db.pool)).toEqual(await walletCountsFromTransfers(db.pool));
    expect(await storedCounts(db.pool)).toEqual([
      { token: TOKEN, owner: ZERO, n: '2' },
      { token: TOKEN, owner: alice, n: '3' },
      { token: TOKEN, owner: bob, n: '2' },
    ]);
    expect((await tables(db.pool)).balances).toEqual([
      { owner: alice.slice(2), balance: '95' },
      { owner: bob.slice(2), balance: '1' },
    ]);
  });

  it('keeps per-wallet transfer counts equal to the transfer rows over every token: replays, removals, a new branch', async () => {
    const db = await freshDatabase();
    const OTHER = a(0xcafe);
    const multi: BlockEvent[] = [
      ...chain.slice(0, 4),
      block(4, [
        [alice, bob, 1n, OTHER],
        [bob, bob, 2n, OTHER],
        [ZERO, alice, 3n, OTHER],
      ]),
    ];
    await db.projector.projectBatch(multi);
    // alice: TOKEN mint and transfer, OTHER transfer and mint; bob: TOKEN from alice, to himself
    // (once), burn, OTHER from alice, to himself (once); the zero address: TOKEN mint and burn,
    // OTHER mint.
    const all = [
      { wallet: ZERO, n: '3' },
      { wallet: alice, n: '4' },
      { wallet: bob, n: '5' },
    ];
    expect(await storedWalletCounts(db.pool)).toEqual(all);
    expect(await walletCountsFromTransfers(db.pool)).toEqual(all);

    // Replays, whole and in part, count nothing twice.
    await db.projector.projectBatch(multi);
    await db.projector.projectBatch(multi.slice(3));
    expect(await storedWalletCounts(db.pool)).toEqual(all);

    // Removing blocks 4 to 2 takes their transfers off every wallet, once.
    await db.projector.projectBatch([removed(4), removed(3), removed(2)]);
    await db.projector.projectBatch([removed(4)]);
    const left = [
      { wallet: ZERO, n: '1' },
      { wallet: alice, n: '1' },
    ];
    expect(await storedWalletCounts(db.pool)).toEqual(left);
    expect(await walletCountsFromTransfers(db.pool)).toEqual(left);

    // The same blocks again (fresh blocks: the COPY path) count again.
    await db.projector.projectBatch(multi.slice(2));
    expect(await storedWalletCounts(db.pool)).toEqual(all);
  });

  it('takes the token and transaction of each transfer from the log it names, wherever the log sits', async () => {
    const db = await freshDatabase();
    const other = a(0xcafe);
    const e = block(1, [
      [ZERO, alice, 7n],
      [alice, bob, 2n, other],
    ]);
    // Logs out of index order: the transfers find theirs by logIndex.
    const shuffled = { ...e, logs: [...e.logs].reverse() } as FullBlockEvent;
    await db.projector.projectBatch([block(0, []), shuffled]);
    const { rows } = await db.pool.query(
      `SELECT log_index, encode(token_address, 'hex') AS token, encode(transaction_hash, 'hex') AS tx,
              transaction_index, encode(from_address, 'hex') AS f, encode(to_address, 'hex') AS t, value::text
         FROM transfers ORDER BY log_index`,
    );
    expect(rows).toEqual([
      {
        log_index: 0,
        token: TOKEN.slice(2),
        tx: h(1001).slice(2),
        transaction_index: 0,
        f: ZERO.slice(2),
        t: alice.slice(2),
        value: '7',
      },
      {
        log_index: 1,
        token: other.slice(2),
        tx: h(1001).slice(2),
        transaction_index: 0,
        f: alice.slice(2),
        t: bob.slice(2),
        value: '2',
      },
    ]);
  });

  it('gives the same tables when batches are started side by side and finished in order', async () => {
    const sequential = await freshDatabase();
    await sequential.projector.projectBatch(chain);
    const expected = await tables(sequential.pool);

    const db = await freshDatabase(4);
    // Three batches, the last two repeating blocks of the first (a replay in flight): each later
    // batch writes its new rows while the one before is open, and finishes after it committed.
    const first = await db.projector.startBatch(chain.slice(0, 3));
    const second = db.projector.startBatch(chain.slice(2));
    const third = db.projector.startBatch(chain.slice(1, 3));
    // Not committed yet: nothing is visible to other sessions.
    expect((await db.pool.query('SELECT count(*)::int AS n FROM blocks')).rows[0].n).toBe(0);
    expect(await first.finish()).toEqual({ blocks: 3, logs: 3, transfers: 3, removedBlocks: 0 });
    // The second batch's block 2 is the first's: it waited for it, then took the careful path.
    expect(await (await second).finish()).toEqual({ blocks: 1, logs: 1, transfers: 1, removedBlocks: 0 });
    expect(await (await third).finish()).toEqual({ blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 });
    expect(await tables(db.pool)).toEqual(expected);

    // An aborted batch leaves nothing; the same blocks projected afterwards count once.
    const again = await freshDatabase();
    const aborted = await again.projector.startBatch(chain.slice(0, 2));
    await aborted.abort();
    expect((await again.pool.query('SELECT count(*)::int AS n FROM blocks')).rows[0].n).toBe(0);
    await again.projector.projectBatch(chain);
    expect(await tables(again.pool)).toEqual(expected);
    await expect(again.projector.startBatch([removed(3)])).rejects.toThrow(/removes blocks/);
  });

  it('runs starts in call order, so a later start never holds a row an earlier start waits for', async () => {
    const db = await freshDatabase(4);
    await db.projector.projectBatch(chain.slice(0, 3));
    const carol = a(0xc0);
    // Both reach below the newest transfer block, so both take the chain's history version. The
    // earlier one has a new address to resolve first, and another transaction holds that address
    // until the later one has had its chance: the later one, its addresses all known, would get
    // there first and hold the version until it commits, after the earlier one.
    const blocker = await db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query(`INSERT INTO address_ids (chain_id, address) VALUES (31337, '\\x${carol.slice(2)}')`);
    const earlier = db.projector.startBatch([chain[2]!, block(4, [[bob, carol, 1n]])]);
    const later = db.projector.startBatch([chain[1]!]);
    const order: string[] = [];
    void later.then(() => order.push('later'));
    // Started in this order, the later start waits for the earlier one; out of order, it is done
    // in a moment. Either way the address is let go after that moment.
    await Promise.race([later, new Promise((r) => setTimeout(r, 500))]);
    await blocker.query('ROLLBACK');
    blocker.release();
    const first = await earlier;
    order.push('earlier');
    expect(await first.finish()).toEqual({ blocks: 1, logs: 1, transfers: 1, removedBlocks: 0 });
    expect(await (await later).finish()).toEqual({ blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 });
    expect(order).toEqual(['earlier', 'later']);
  });
});
