import type { Pool } from '@tributary/db';
import type { BlockEvent } from '@tributary/schema';

// Small confirmed blocks whose balances tell how often each block was projected.

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const TOKEN = a(0xbeef);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as `0x${string}`;
const word = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;

/** Block n: a mint of n + 1 to wallet n and a transfer of 1 from wallet n to wallet 0x99. */
export function block(n: number): BlockEvent {
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

/** What a user reads back: counts, and each wallet's balance (every projection of a block shows). */
export async function projectedState(pool: Pool) {
  const { rows } = await pool.query<{ blocks: number; transfers: number; logs: number }>(
    `SELECT (SELECT count(*)::int FROM blocks) AS blocks, (SELECT count(*)::int FROM transfers) AS transfers,
            (SELECT count(*)::int FROM logs) AS logs`,
  );
  const { rows: balances } = await pool.query<{ owner: string; balance: string }>(
    `SELECT '0x' || encode(owner_address, 'hex') AS owner, balance::text AS balance FROM balances
      WHERE owner_address <> '\\x0000000000000000000000000000000000000000'::bytea ORDER BY 1`,
  );
  return { ...rows[0]!, balances };
}

/** projectedState after blocks `numbers` were each projected exactly once. */
export function expectedState(numbers: number[]) {
  const balances = [
    ...numbers.map((n) => ({ owner: a(0x100 + n), balance: String(n) })),
    { owner: a(0x99), balance: String(numbers.length) },
  ].sort((x, y) => x.owner.localeCompare(y.owner));
  return { blocks: numbers.length, transfers: 2 * numbers.length, logs: 2 * numbers.length, balances };
}

/** 0, 1, ..., n - 1 */
export const range = (n: number) => Array.from({ length: n }, (_, i) => i);
