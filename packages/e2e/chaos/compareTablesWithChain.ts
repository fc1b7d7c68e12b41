import type { Pool } from '@tributary/db';
import type { Hex } from 'viem';
import type { ChainLog } from '../kinds/readChainBlocks.ts';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface TableCount {
  /** Rows the chain says there must be. */
  expected: number;
  /** Of those, not in the table. */
  missing: number;
  /** Rows the table holds more than once. */
  duplicated: number;
  /** Rows in the table the chain does not have (or with other values). */
  extra: number;
}

/**
 * Counts, for each query table, what is missing, doubled or wrong against the chain: blocks by
 * number and hash, logs and ERC20 transfers by (block hash, log index), balances from the sum of
 * the chain's transfers per (token, owner), tokens by address. Counts, not assertions: the chaos
 * report shows them all.
 */
export async function compareTablesWithChain(
  pool: Pool,
  chainId: number,
  chain: { blockHashes: Hex[]; logs: ChainLog[] },
): Promise<Record<string, TableCount>> {
  const hex = (b: Buffer) => `0x${b.toString('hex')}`;
  const out: Record<string, TableCount> = {};

  const blocks = await pool.query<{ number: string; hash: Buffer }>(
    'SELECT number, hash FROM blocks WHERE chain_id = $1',
    [chainId],
  );
  out['blocks'] = compareKeys(
    chain.blockHashes.map((h, n) => `${n}:${h}`),
    blocks.rows.map((r) => `${r.number}:${hex(r.hash)}`),
  );

  const logs = await pool.query<{ block_hash: Buffer; log_index: number }>(
    'SELECT block_hash, log_index FROM logs WHERE chain_id = $1',
    [chainId],
  );
  out['logs'] = compareKeys(
    chain.logs.map((l) => `${l.blockHash}:${l.logIndex}`),
    logs.rows.map((r) => `${hex(r.block_hash)}:${r.log_index}`),
  );

  const transfers = chain.logs.filter((l) => l.topics[0] === TRANSFER && l.topics.length === 3);
  const rows = await pool.query<{ block_hash: Buffer; log_index: number }>(
    'SELECT block_hash, log_index FROM transfers WHERE chain_id = $1',
    [chainId],
  );
  out['transfers'] = compareKeys(
    transfers.map((l) => `${l.blockHash}:${l.logIndex}`),
    rows.rows.map((r) => `${hex(r.block_hash)}:${r.log_index}`),
  );

  const zero = `0x${'0'.repeat(40)}`;
  const expected = new Map<string, bigint>();
  for (const l of transfers) {
    const value = BigInt(l.data);
    const from = `0x${l.topics[1]!.slice(26)}`;
    const to = `0x${l.topics[2]!.slice(26)}`;
    if (from !== zero)
      expected.set(`${l.address}:${from}`, (expected.get(`${l.address}:${from}`) ?? 0n) - value);
    if (to !== zero) expected.set(`${l.address}:${to}`, (expected.get(`${l.address}:${to}`) ?? 0n) + value);
  }
  const balances = await pool.query<{ token: Buffer; owner: Buffer; balance: string }>(
    'SELECT token_address AS token, owner_address AS owner, balance FROM balances WHERE chain_id = $1',
    [chainId],
  );
  out['balances'] = compareKeys(
    [...expected].map(([k, v]) => `${k}:${v}`),
    balances.rows.filter((r) => r.balance !== '0').map((r) => `${hex(r.token)}:${hex(r.owner)}:${r.balance}`),
  );

  const tokens = await pool.query<{ address: Buffer }>('SELECT address FROM tokens WHERE chain_id = $1', [
    chainId,
  ]);
  out['tokens'] = compareKeys(
    [...new Set(transfers.map((l) => l.address))],
    tokens.rows.map((r) => hex(r.address)),
  );
  return out;
}

function compareKeys(expected: readonly string[], actual: readonly string[]): TableCount {
  const want = new Set(expected);
  const seen = new Map<string, number>();
  for (const k of actual) seen.set(k, (seen.get(k) ?? 0) + 1);
  let missing = 0;
  for (const k of want) if (!seen.has(k)) missing++;
  let duplicated = 0;
  let extra = 0;
  for (const [k, n] of seen) {
    if (n > 1) duplicated += n - 1;
    if (!want.has(k)) extra++;
  }
  return { expected: want.size, missing, duplicated, extra };
}
