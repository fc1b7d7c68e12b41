import { createHash } from 'node:crypto';
import { type Pool, hexToBytes } from '@tributary/db';
import { AddressIds } from '@tributary/db/chain';

/** Deterministic fake hashes and addresses, so that expected bodies can be written out. */
export function hash32(seed: string): string {
  return `0x${createHash('sha256').update(seed).digest('hex')}`;
}

export function addr(seed: string): string {
  return `0x${createHash('sha256').update(`addr:${seed}`).digest('hex').slice(0, 40)}`;
}

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export function blockHash(chainId: number, n: number): string {
  return hash32(`block:${chainId}:${n}`);
}

export function txHash(chainId: number, n: number, txIndex: number): string {
  return hash32(`tx:${chainId}:${n}:${txIndex}`);
}

/** Block n of a test chain: timestamp = base + 12 s per block. */
export function blockTime(n: number, base = Date.UTC(2024, 0, 1)): Date {
  return new Date(base + n * 12_000);
}

export async function insertBlocks(pool: Pool, chainId: number, numbers: readonly number[]): Promise<void> {
  for (const n of numbers) {
    await pool.query(
      `INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, confirmed)
       VALUES ($1, $2, $3, $4, $5, true) ON CONFLICT DO NOTHING`,
      [chainId, n, hexToBytes(blockHash(chainId, n)), hexToBytes(blockHash(chainId, n - 1)), blockTime(n)],
    );
  }
}

export interface TransferFixture {
  chainId: number;
  block: number;
  logIndex: number;
  txIndex?: number;
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/**
 * Inserts transfer rows and keeps the per-(owner, token) and per-wallet transfer counts as the
 * projector does (each party once, a transfer to oneself once); balances are left to setBalance.
 */
export async function insertTransfers(pool: Pool, transfers: readonly TransferFixture[]): Promise<void> {
  const ids = new AddressIds();
  for (const t of transfers) {
    await ids.resolve(pool, t.chainId, [t.token, t.from, t.to]);
    await pool.query(
      `WITH parties AS (SELECT DISTINCT o FROM unnest(ARRAY[$3::bytea, $4::bytea]) o), per_token AS (
         INSERT INTO balances AS b (chain_id, token_address, owner_address, balance, transfer_count)
         SELECT $1::bigint, $2::bytea, o, 0::numeric, 1::bigint FROM parties
         ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE SET transfer_count = b.transfer_count + 1
       )
       INSERT INTO wallet_transfer_counts AS w (chain_id, wallet, transfers)
       SELECT $1::bigint, o, 1 FROM parties
       ON CONFLICT (chain_id, wallet) DO UPDATE SET transfers = w.transfers + 1`,
      [t.chainId, hexToBytes(t.token), hexToBytes(t.from), hexToBytes(t.to)],
    );
    const txIndex = t.txIndex ?? t.logIndex;
    await pool.query(
      `INSERT INTO transfers (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                              transaction_index, token_address, from_address, to_address, value,
                              token_id, from_id, to_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        t.chainId,
        t.block,
        t.logIndex,
        hexToBytes(blockHash(t.chainId, t.block)),
        blockTime(t.block),
        hexToBytes(txHash(t.chainId, t.block, txIndex)),
        txIndex,
        hexToBytes(t.token),
        hexToBytes(t.from),
        hexToBytes(t.to),
        t.value.toString(),
        ids.id(t.chainId, t.token),
        ids.id(t.chainId, t.from),
        ids.id(t.chainId, t.to),
      ],
    );
  }
}

export interface LogFixture {
  chainId: number;
  block: number;
  logIndex: number;
  txIndex?: number;
  address: string;
  topics: string[];
  data: string;
}

export async function insertLogs(pool: Pool, logs: readonly LogFixture[]): Promise<void> {
  const ids = new AddressIds();
  for (const l of logs) {
    await ids.resolve(pool, l.chainId, [l.address]);
    const txIndex = l.txIndex ?? l.logIndex;
    const topic = (i: number) => (l.topics[i] === undefined ? null : hexToBytes(l.topics[i]));
    await pool.query(
      `INSERT INTO logs (chain_id, block_number, log_index, block_hash, block_timestamp, transaction_hash,
                         transaction_index, address, topic0, topic1, topic2, topic3, data, address_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        l.chainId,
        l.block,
        l.logIndex,
        hexToBytes(blockHash(l.chainId, l.block)),
        blockTime(l.block),
        hexToBytes(txHash(l.chainId, l.block, txIndex)),
        txIndex,
        hexToBytes(l.address),
        topic(0),
        topic(1),
        topic(2),
        topic(3),
        hexToBytes(l.data),
        ids.id(l.chainId, l.address),
      ],
    );
  }
}

export async function insertToken(
  pool: Pool,
  t: {
    chainId: number;
    address: string;
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    totalSupply: bigint | null;
    logo?: string;
    possibleSpam?: boolean;
    verified?: boolean;
  },
): Promise<void> {
  await pool.query(
    `INSERT INTO tokens (chain_id, address, name, symbol, decimals, total_supply, read_at_block, logo, possible_spam, verified)
     VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $9)`,
    [
      t.chainId,
      hexToBytes(t.address),
      t.name,
      t.symbol,
      t.decimals,
      t.totalSupply?.toString() ?? null,
      t.logo ?? null,
      t.possibleSpam ?? false,
      t.verified ?? false,
    ],
  );
}

export async function setBalance(
  pool: Pool,
  b: { chainId: number; token: string; owner: string; balance: bigint },
): Promise<void> {
  await pool.query(
    `INSERT INTO balances (chain_id, token_address, owner_address, balance) VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain_id, token_address, owner_address) DO UPDATE SET balance = EXCLUDED.balance`,
    [b.chainId, hexToBytes(b.token), hexToBytes(b.owner), b.balance.toString()],
  );
}

export async function setLabel(pool: Pool, chainId: number, address: string, label: string): Promise<void> {
  await pool.query('INSERT INTO address_labels (chain_id, address, label) VALUES ($1, $2, $3)', [
    chainId,
    hexToBytes(address),
    label,
  ]);
}

export async function setAddressKind(pool: Pool, chainId: number, address: string, isContract: boolean) {
  await pool.query('INSERT INTO address_kinds (chain_id, address, is_contract) VALUES ($1, $2, $3)', [
    chainId,
    hexToBytes(address),
    isContract,
  ]);
}

/**
 * Registers chains as followed by this deployment, as a follower's first checkpoint does: the
 * data interface answers 400 for any other chain.
 */
export async function followChains(pool: Pool, chainIds: readonly number[]): Promise<void> {
  for (const chainId of chainIds) {
    await pool.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES ($1, 0, $2)
       ON CONFLICT (chain_id) DO NOTHING`,
      [chainId, hexToBytes(blockHash(chainId, 0))],
    );
  }
}
