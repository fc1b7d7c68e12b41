import type { Pool } from '@tributary/db';
import { type Address, type PublicClient, erc20Abi } from 'viem';
import { expect } from 'vitest';
import { TRANSFER_TOPIC0 } from './chainTruth.ts';

const hex = (b: Buffer | null) => (b === null ? null : `0x${b.toString('hex')}`);

/**
 * Asserts that the query tables hold exactly what the chain says: every block once (none skipped),
 * every log and ERC20 transfer once (none duplicated), each owner's balance (balanceOf) and each
 * token's supply (totalSupply).
 */
export async function assertTablesMatchChain(pool: Pool, client: PublicClient, chainId = 31337) {
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));

  const blocks = await pool.query<{ number: string; hash: Buffer; parent_hash: Buffer; ts: string }>(
    'SELECT number, hash, parent_hash, extract(epoch FROM timestamp)::bigint AS ts FROM blocks WHERE chain_id = $1 ORDER BY number',
    [chainId],
  );
  expect(blocks.rows.map((r) => Number(r.number))).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
  for (const r of blocks.rows) {
    const b = await client.getBlock({ blockNumber: BigInt(r.number) });
    expect({ hash: hex(r.hash), parent: hex(r.parent_hash), ts: Number(r.ts) }).toEqual({
      hash: b.hash,
      parent: b.parentHash,
      ts: Number(b.timestamp),
    });
  }

  const chainLogs = await client.getLogs({ fromBlock: 0n, toBlock: BigInt(head) });
  const logs = await pool.query<Record<string, Buffer | string | number | null>>(
    `SELECT block_number, log_index, block_hash, transaction_hash, transaction_index, address, topic0, topic1, topic2,
       topic3, data FROM logs WHERE chain_id = $1 ORDER BY block_number, log_index`,
    [chainId],
  );
  expect(
    logs.rows.map((r) => ({
      blockNumber: Number(r['block_number']),
      logIndex: r['log_index'],
      blockHash: hex(r['block_hash'] as Buffer),
      transactionHash: hex(r['transaction_hash'] as Buffer),
      transactionIndex: r['transaction_index'],
      address: hex(r['address'] as Buffer),
      topics: [r['topic0'], r['topic1'], r['topic2'], r['topic3']]
        .filter((t) => t !== null)
        .map((t) => hex(t as Buffer)),
      data: hex(r['data'] as Buffer),
    })),
  ).toEqual(
    chainLogs.map((l) => ({
      blockNumber: Number(l.blockNumber),
      logIndex: l.logIndex,
      blockHash: l.blockHash,
      transactionHash: l.transactionHash,
      transactionIndex: l.transactionIndex,
      address: l.address.toLowerCase(),
      topics: l.topics,
      data: l.data,
    })),
  );

  const chainTransfers = chainLogs.filter((l) => l.topics[0] === TRANSFER_TOPIC0 && l.topics.length === 3);
  const transfers = await pool.query<{
    block_number: string;
    log_index: number;
    token: Buffer;
    f: Buffer;
    t: Buffer;
    value: string;
  }>(
    `SELECT block_number, log_index, token_address AS token, from_address AS f, to_address AS t, value
     FROM transfers WHERE chain_id = $1 ORDER BY block_number, log_index`,
    [chainId],
  );
  expect(
    transfers.rows.map((r) => [
      Number(r.block_number),
      r.log_index,
      hex(r.token),
      hex(r.f),
      hex(r.t),
      r.value,
    ]),
  ).toEqual(
    chainTransfers.map((l) => [
      Number(l.blockNumber),
      l.logIndex,
      l.address.toLowerCase(),
      `0x${l.topics[1]!.slice(26)}`,
      `0x${l.topics[2]!.slice(26)}`,
      BigInt(l.data).toString(),
    ]),
  );

  // Every non-zero party of a transfer is an owner row, and every owner row equals balanceOf.
  const balances = await pool.query<{ token: Buffer; owner: Buffer; balance: string }>(
    'SELECT token_address AS token, owner_address AS owner, balance FROM balances WHERE chain_id = $1',
    [chainId],
  );
  const expectedOwners = new Set<string>();
  for (const r of transfers.rows) {
    for (const a of [hex(r.f), hex(r.t)])
      if (a !== `0x${'0'.repeat(40)}`) expectedOwners.add(`${hex(r.token)}:${a}`);
  }
  // (Parties seen only on an orphaned branch may keep a zero row; balanceOf says 0 for them too.)
  const owners = new Set(balances.rows.map((r) => `${hex(r.token)}:${hex(r.owner)}`));
  expect([...expectedOwners].filter((o) => !owners.has(o))).toEqual([]);
  for (const r of balances.rows) {
    const onChain = await client.readContract({
      address: hex(r.token) as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [hex(r.owner) as Address],
    });
    expect({ token: hex(r.token), owner: hex(r.owner), balance: r.balance }).toEqual({
      token: hex(r.token),
      owner: hex(r.owner),
      balance: onChain.toString(),
    });
  }

  const tokens = await pool.query<{ address: Buffer; total_supply: string | null }>(
    'SELECT address, total_supply FROM tokens WHERE chain_id = $1',
    [chainId],
  );
  expect(new Set(tokens.rows.map((r) => hex(r.address)))).toEqual(
    new Set(chainTransfers.map((l) => l.address.toLowerCase())),
  );
  for (const r of tokens.rows) {
    const supply = await client
      .readContract({ address: hex(r.address) as Address, abi: erc20Abi, functionName: 'totalSupply' })
      .then((s) => s.toString())
      .catch(() => null);
    expect({ token: hex(r.address), totalSupply: r.total_supply }).toEqual({
      token: hex(r.address),
      totalSupply: supply,
    });
  }

  const kinds = await pool.query<{ address: Buffer; is_contract: boolean }>(
    'SELECT address, is_contract FROM address_kinds WHERE chain_id = $1',
    [chainId],
  );
  const expectedAddresses = new Set([...expectedOwners].map((k) => k.split(':')[1]!));
  const kindSet = new Set(kinds.rows.map((r) => hex(r.address)));
  expect([...expectedAddresses].filter((a) => !kindSet.has(a))).toEqual([]);
  for (const r of kinds.rows) {
    const code = await client.getCode({ address: hex(r.address) as Address });
    expect({ address: hex(r.address), isContract: r.is_contract }).toEqual({
      address: hex(r.address),
      isContract: code !== undefined && code !== '0x',
    });
  }
}
