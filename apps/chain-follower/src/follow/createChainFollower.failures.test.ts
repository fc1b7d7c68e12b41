import { createDevnetClient } from '@tributary/devnet';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createFollowerHarness, waitFor } from '../testing/createFollowerHarness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

const mine = (client: ReturnType<typeof createDevnetClient>, n: number) =>
  client.request({
    method: 'anvil_mine' as 'eth_chainId',
    params: [`0x${n.toString(16)}`] as unknown as undefined,
  });

describe('the follower on a failure that repeats itself', { timeout: 90_000 }, () => {
  it('says what fails (a check violation) instead of blaming the database, skips no block, and goes on once it is fixed', async () => {
    const anvil: StartedAnvil = await startAnvil();
    cleanup.push(() => anvil.stop());
    const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
    const harness = await createFollowerHarness({
      rpcUrl: anvil.rpcUrl,
      options: { maxBatchBlocks: 5, headBatchBlocks: 5, haltRecheckMs: 500 },
    });
    cleanup.push(() => harness.close());
    await mine(client, 4);
    const follower = harness.startFollower();
    await harness.waitFollowed(follower);
    // Recording block 8 is refused, the same way every time.
    await harness.pool.query(
      'ALTER TABLE follower_blocks ADD CONSTRAINT no_block_8 CHECK (number <> 8) NOT VALID',
    );
    await mine(client, 6);
    await waitFor(async () => follower.follower.status().failing !== null, 30_000, 'the failure to be said');
    expect(follower.follower.status().failing).toMatch(/PostgreSQL 23514 \(check_violation\)/);
    expect(follower.follower.status().checkpoint).toBeLessThan(8);
    await harness.pool.query('ALTER TABLE follower_blocks DROP CONSTRAINT no_block_8');
    await harness.waitFollowed(follower, 60_000);
    expect(follower.follower.status().failing).toBeNull();
    await follower.stop();
    const firsts = new Set(
      (await harness.readEvents()).filter((e) => e.type !== 'removed').map((e) => e.block.number),
    );
    expect([...firsts].sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i));
  });
});
