import {
  demoTokenAbi,
  demoTokenBytecode,
  rebasingTokenAbi,
  rebasingTokenBytecode,
} from '@tributary/contracts';
import type { Pool } from '@tributary/db';
import { type DevnetClient, createDevnetClient, deploy, waitMined } from '@tributary/devnet';
import { createLogger } from '@tributary/runtime';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import type { Abi, Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedDatabase } from '../testing/migratedDatabase.ts';
import { createSupplyCheck } from './createSupplyCheck.ts';

// Real PostgreSQL and a real anvil: the tables hold what the projector would have written for a
// plain token and a rebasing one (1000 minted each), and the check reads the node.
const CHAIN_ID = 31337;
let anvil: StartedAnvil;
let client: DevnetClient;
let db: Awaited<ReturnType<typeof migratedDatabase>>;
let plain: Address;
let rebasing: Address;

const buf = (hex: string) => Buffer.from(hex.slice(2), 'hex');

async function projectHead(pool: Pool, hash?: `0x${string}`) {
  const block = await client.getBlock({ blockTag: 'latest' });
  await pool.query(
    `INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp) VALUES ($1, $2, $3, $4, to_timestamp($5))
     ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash`,
    [CHAIN_ID, Number(block.number), buf(hash ?? block.hash), buf(block.parentHash), Number(block.timestamp)],
  );
  return Number(block.number);
}

async function tokenRows() {
  const { rows } = await db.pool.query<{
    address: Buffer;
    block: string | null;
    supply: string | null;
    mismatch: boolean;
  }>(
    `SELECT address, supply_checked_block AS block, chain_total_supply::text AS supply, supply_mismatch AS mismatch
       FROM tokens ORDER BY address`,
  );
  return Object.fromEntries(
    rows.map((r) => [
      `0x${r.address.toString('hex')}`,
      { block: r.block, supply: r.supply, mismatch: r.mismatch },
    ]),
  );
}

beforeAll(async () => {
  anvil = await startAnvil();
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  db = await migratedDatabase(2);
  plain = (
    await deploy(client, demoTokenAbi, demoTokenBytecode, ['Plain', 'PLN', 18])
  ).toLowerCase() as Address;
  rebasing = (await deploy(client, rebasingTokenAbi, rebasingTokenBytecode, [])).toLowerCase() as Address;
  for (const token of [plain, rebasing]) {
    const abi = (token === plain ? demoTokenAbi : rebasingTokenAbi) as Abi;
    await waitMined(
      client,
      await client.writeContract({
        address: token,
        abi,
        functionName: 'mint',
        args: [client.account.address, 1000n],
      } as never),
    );
    await db.pool.query(
      `INSERT INTO tokens (chain_id, address, name, symbol, decimals, total_supply, read_at_block) VALUES ($1, $2, 'T', 'T', 18, 1000, 0)`,
      [CHAIN_ID, buf(token)],
    );
  }
}, 60_000);

afterAll(async () => {
  await db?.drop();
  await anvil?.stop();
});

const check = () =>
  createSupplyCheck({
    pool: db.pool,
    chainId: CHAIN_ID,
    rpcUrl: anvil.rpcUrl,
    intervalMs: 0,
    logger: createLogger('supply-check-test', 'silent'),
  });

describe('createSupplyCheck', () => {
  it('records the chain supply at the projected head and flags only the token that moved without an event', async () => {
    const first = await projectHead(db.pool);
    await check().runOnce();
    expect(await tokenRows()).toEqual({
      [plain]: { block: String(first), supply: '1000', mismatch: false },
      [rebasing]: { block: String(first), supply: '1000', mismatch: false },
    });

    await waitMined(
      client,
      await client.writeContract({
        address: rebasing,
        abi: rebasingTokenAbi,
        functionName: 'rebase',
        args: [3n],
      } as never),
    );
    const second = await projectHead(db.pool);
    await check().runOnce();
    expect(await tokenRows()).toEqual({
      [plain]: { block: String(second), supply: '1000', mismatch: false },
      [rebasing]: { block: String(second), supply: '3000', mismatch: true },
    });
  });

  it('keeps the last verdict at a head the node does not know (an orphaned block)', async () => {
    const before = await tokenRows();
    expect(before[rebasing]).toMatchObject({ supply: '3000', mismatch: true });
    await client.request({ method: 'evm_mine', params: [] } as never);
    await projectHead(db.pool, `0x${'ab'.repeat(32)}`);
    const checks = await check().runOnce();
    expect(checks).toEqual([
      { address: plain, chainSupply: null, mismatch: false },
      { address: rebasing, chainSupply: null, mismatch: false },
    ]);
    expect(await tokenRows()).toEqual(before);
  });
});
