import type { Pool } from 'pg';

import { bytesToHex as hex, hexToBytes as bytes } from '../bytes.ts';

export interface SupplyCheckBatch {
  /** The projected head the supplies belong to (null before the first block). */
  block: { number: number; hash: string } | null;
  /** Tokens with a known supply, least recently checked first: the supply their transfers add up to at `block`. */
  tokens: { address: string; indexedSupply: bigint }[];
}

/**
 * Up to `limit` tokens to check, with the projected head, in one statement: one snapshot, so each
 * indexed supply is the one at that head (the projector writes blocks and supplies together).
 */
export async function findSupplyCheckBatch(
  pool: Pool,
  chainId: number,
  limit: number,
): Promise<SupplyCheckBatch> {
  const { rows } = await pool.query<{
    head: string | null;
    head_hash: Buffer | null;
    address: Buffer | null;
    total_supply: string | null;
  }>(
    `WITH head AS (SELECT number, hash FROM blocks WHERE chain_id = $1 ORDER BY number DESC LIMIT 1)
     SELECT head.number AS head, head.hash AS head_hash, t.address, t.total_supply::text
       FROM head LEFT JOIN LATERAL (
         SELECT address, total_supply FROM tokens
          WHERE chain_id = $1 AND total_supply IS NOT NULL
          ORDER BY supply_checked_block NULLS FIRST, address LIMIT $2) t ON true`,
    [chainId, limit],
  );
  const first = rows[0];
  if (!first || first.head === null || first.head_hash === null) return { block: null, tokens: [] };
  return {
    block: { number: Number(first.head), hash: hex(first.head_hash) },
    tokens: rows.flatMap((r) =>
      r.address === null || r.total_supply === null
        ? []
        : [{ address: hex(r.address), indexedSupply: BigInt(r.total_supply) }],
    ),
  };
}

export interface SupplyCheck {
  address: string;
  /** totalSupply() at the checked block; null when the call failed (the token is then not judged). */
  chainSupply: bigint | null;
  mismatch: boolean;
}

/**
 * Stores the outcome of one round: the block, the chain's supply and whether it differs. A token
 * whose call failed keeps its last verdict (a failed read says nothing about the token).
 */
export async function recordSupplyChecks(
  pool: Pool,
  chainId: number,
  blockNumber: number,
  checks: readonly SupplyCheck[],
): Promise<void> {
  const judged = checks.filter((c) => c.chainSupply !== null);
  if (judged.length === 0) return;
  await pool.query(
    `UPDATE tokens t SET supply_checked_block = $2, chain_total_supply = c.supply, supply_mismatch = c.mismatch
       FROM unnest($3::bytea[], $4::numeric[], $5::boolean[]) AS c(address, supply, mismatch)
      WHERE t.chain_id = $1 AND t.address = c.address`,
    [
      chainId,
      blockNumber,
      judged.map((c) => bytes(c.address)),
      judged.map((c) => String(c.chainSupply)),
      judged.map((c) => c.mismatch),
    ],
  );
}
