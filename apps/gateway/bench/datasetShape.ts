// The synthetic dataset's shape, shared by the seed (which builds it in SQL) and the load run
// (which picks request parameters from it). Addresses are derived from ranks the same way on both
// sides: the first 20 bytes of sha256(prefix byte || rank as int8), so no address list is stored.
import { createHash } from 'node:crypto';

/** The benchmark database on DATABASE_URL's server (BENCH_DATABASE overrides, e.g. for a small trial set). */
export function benchDatabaseName(env: NodeJS.ProcessEnv): string {
  const name = env['BENCH_DATABASE'] ?? 'tributary_bench';
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`BENCH_DATABASE must be a plain identifier: ${name}`);
  return name;
}
export const CHAIN_ID = 1;
export const FIRST_BLOCK = 18_000_000;
export const FIRST_BLOCK_TIME = Date.parse('2023-08-26T00:00:00Z');
export const BLOCK_SECONDS = 12;
const TRANSFERS_PER_BLOCK = 100;
/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC0 = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** keccak256("Approval(address,address,uint256)"): no logs carry it in the dataset. */
export const APPROVAL_TOPIC0 = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';

export interface SeedParams {
  version: number;
  rows: number;
  /** Transfer logs are written for the newest `logRows` transfers only (all of them by default). */
  logRows: number;
  wallets: number;
  tokens: number;
  transfersPerBlock: number;
  firstBlock: number;
}

export function seedParams(env: NodeJS.ProcessEnv): SeedParams {
  const rows = Number(env['BENCH_ROWS'] ?? 10_000_000);
  return {
    // Bump when the generator changes, so an old dataset is rebuilt rather than reused.
    // 2: address ids (migration 080). 3: primary keys (chain_id, pos), built with their fillfactor.
    version: 3,
    rows,
    // BENCH_LOG_ROWS caps the logs table, so a transfers table larger than the disk holds twice
    // over can still be measured: the newest transfers keep their logs, the blocks the logs route
    // asks for stay where they are.
    logRows: Math.min(rows, Number(env['BENCH_LOG_ROWS'] ?? rows)),
    wallets: Number(env['BENCH_WALLETS'] ?? 200_000),
    tokens: Number(env['BENCH_TOKENS'] ?? 2_000),
    transfersPerBlock: TRANSFERS_PER_BLOCK,
    firstBlock: FIRST_BLOCK,
  };
}

export const WALLET_PREFIX = 0x77; // 'w'
export const TOKEN_PREFIX = 0x6b; // 'k'

function rankAddress(prefix: number, rank: number): string {
  const buf = Buffer.alloc(9);
  buf.writeUInt8(prefix, 0);
  buf.writeBigInt64BE(BigInt(rank), 1);
  return `0x${createHash('sha256').update(buf).digest('hex').slice(0, 40)}`;
}

export const walletAddress = (rank: number) => rankAddress(WALLET_PREFIX, rank);
export const tokenAddress = (rank: number) => rankAddress(TOKEN_PREFIX, rank);

/**
 * Zipf-like rank in [1, n): floor(n^u) for uniform u, so P(rank = k) = ln((k+1)/k) / ln(n). The
 * seed draws senders, half the receivers and the tokens this way (the same formula in SQL).
 */
export function zipfRank(n: number, u: number = Math.random()): number {
  return Math.max(1, Math.min(n - 1, Math.floor(n ** u)));
}
