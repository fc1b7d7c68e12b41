import { createDevnetClient, devnetAccount, waitMined } from '@tributary/devnet';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningFollower, createFollowerHarness, waitFor } from '../testing/createFollowerHarness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

async function anvil(args: string[] = []): Promise<StartedAnvil> {
  const started = await startAnvil({ args });
  cleanup.push(() => started.stop());
  return started;
}

async function harnessOn(rpcUrl: string, options: Parameters<typeof createFollowerHarness>[0]['options']) {
  const harness = await createFollowerHarness({ rpcUrl, options: { haltRecheckMs: 200, ...options } });
  cleanup.push(() => harness.close());
  return harness;
}

function started(f: RunningFollower): RunningFollower {
  cleanup.push(() => f.stop());
  return f;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const mine = (url: string, blocks: number) => rpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`]);

async function genesisHash(url: string): Promise<string> {
  return ((await rpc(url, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash;
}

/** The gauge's value as /metrics shows it. */
async function gauge(f: RunningFollower, name: string): Promise<number> {
  const line = (await f.metrics.metrics()).split('\n').find((l) => l.startsWith(`${name}{`));
  return Number(line?.split(' ').pop());
}

async function checkpointRow(pool: { query: (sql: string) => Promise<{ rows: unknown[] }> }) {
  return (await pool.query('SELECT block_number, block_hash, genesis_hash FROM follower_checkpoints')).rows;
}

describe('the follower halts instead of corrupting or crash-looping', { timeout: 90_000 }, () => {
  it('on another chain at start (a devnet restarted from genesis): alarmed, publishing nothing, until the indexed data is reset', async () => {
    const indexed = await anvil();
    const other = await anvil(['--timestamp', '1700000000']);
    await mine(indexed.rpcUrl, 12);
    await mine(other.rpcUrl, 5);
    const harness = await harnessOn(indexed.rpcUrl, { confirmations: 2 });
    const first = harness.startFollower();
    await harness.waitFollowed(first);
    await first.stop();
    const eventsBefore = (await harness.readEvents()).length;
    const saved = await checkpointRow(harness.pool);
    expect(saved).toEqual([
      expect.objectContaining({ block_number: '12', genesis_hash: expect.any(Buffer) }),
    ]);

    const wrong = started(harness.startFollower({}, { rpcUrl: other.rpcUrl }));
    await waitFor(async () => wrong.follower.status().halt !== null, 10_000, 'the halt');
    const halt = wrong.follower.status().halt!;
    expect(halt.kind).toBe('chain-mismatch');
    expect(halt.message).toContain(
      `the node's chain is not the one indexed for chain 31337: its genesis block is ${await genesisHash(other.rpcUrl)}, the indexed chain's is ${await genesisHash(indexed.rpcUrl)}`,
    );
    expect(await gauge(wrong, 'tributary_follower_chain_mismatch')).toBe(1);
    // It stays up and keeps looking (several re-checks), without touching what was indexed.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(wrong.follower.status().halt?.kind).toBe('chain-mismatch');
    expect((await harness.readEvents()).length).toBe(eventsBefore);
    expect(await checkpointRow(harness.pool)).toEqual(saved);

    // What npm start does for a new devnet: the indexed data goes, and the follower starts over.
    await harness.pool.query('DELETE FROM follower_blocks; DELETE FROM follower_checkpoints');
    await waitFor(
      async () => wrong.follower.status().checkpoint === 5 && wrong.follower.status().halt === null,
      15_000,
      'the follower to follow the other chain',
    );
    expect(await gauge(wrong, 'tributary_follower_chain_mismatch')).toBe(0);
    const [row] = (await checkpointRow(harness.pool)) as { genesis_hash: Buffer }[];
    expect(`0x${row!.genesis_hash.toString('hex')}`).toBe(await genesisHash(other.rpcUrl));
  });

  it('when its node restarts from genesis while it follows', async () => {
    const node = await anvil();
    await mine(node.rpcUrl, 10);
    const harness = await harnessOn(node.rpcUrl, { confirmations: 2 });
    const follower = started(harness.startFollower());
    await harness.waitFollowed(follower);
    const eventsBefore = (await harness.readEvents()).length;

    await rpc(node.rpcUrl, 'anvil_reset');
    await mine(node.rpcUrl, 3);
    await waitFor(async () => follower.follower.status().halt !== null, 10_000, 'the halt');
    expect(follower.follower.status().halt?.kind).toBe('chain-mismatch');
    expect(follower.follower.status().checkpoint).toBe(10);
    expect(await gauge(follower, 'tributary_follower_chain_mismatch')).toBe(1);
    expect((await harness.readEvents()).length).toBe(eventsBefore);
  });

  it('on a reorg deeper than the kept blocks (same chain): alarmed, no removed events, checkpoint kept', async () => {
    const node = await anvil();
    const client = createDevnetClient({ rpcUrl: node.rpcUrl });
    await mine(node.rpcUrl, 5);
    const snapshot = await rpc(node.rpcUrl, 'evm_snapshot');
    await mine(node.rpcUrl, 10);
    const harness = await harnessOn(node.rpcUrl, { confirmations: 2, reorgWindow: 4 });
    const follower = started(harness.startFollower());
    await harness.waitFollowed(follower);
    const eventsBefore = (await harness.readEvents()).length;
    const saved = await checkpointRow(harness.pool);

    // A branch from block 5 that differs from its first block on, longer than the old one.
    await rpc(node.rpcUrl, 'evm_revert', [snapshot]);
    await waitMined(
      client,
      await client.sendTransaction({ to: devnetAccount(1).address, value: 1n, chain: null }),
    );
    await mine(node.rpcUrl, 12);
    await waitFor(async () => follower.follower.status().halt !== null, 10_000, 'the halt');
    const halt = follower.follower.status().halt!;
    expect(halt.kind).toBe('deep-reorg');
    expect(halt.message).toMatch(/^reorg deeper than the \d+ blocks kept/);
    expect(await gauge(follower, 'tributary_follower_deep_reorg')).toBe(1);
    expect(await gauge(follower, 'tributary_follower_chain_mismatch')).toBe(0);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(follower.follower.status().halt?.kind).toBe('deep-reorg');
    const events = await harness.readEvents();
    expect(events.length).toBe(eventsBefore);
    expect(events.filter((e) => e.type === 'removed')).toEqual([]);
    expect(await checkpointRow(harness.pool)).toEqual(saved);
  });
});
