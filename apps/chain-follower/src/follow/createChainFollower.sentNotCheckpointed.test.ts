import type { Pool } from '@tributary/db';
import { createDevnetClient } from '@tributary/devnet';
import type { BlockEvent } from '@tributary/schema';
import { startAnvil } from '@tributary/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockPublisher } from '../publish/createBlockPublisher.ts';
import { createFollowerHarness } from '../testing/createFollowerHarness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

type Client = ReturnType<typeof createDevnetClient>;
const rpc = (client: Client, method: string, params: unknown[] = []) =>
  client.request({ method: method as 'eth_chainId', params: params as unknown as undefined });

/**
 * Each way a follow step can fail once its blocks went to Kafka but before its checkpoint moved:
 * `on` starts failing every step from then, `off` ends it, `failed` resolves once a step with
 * blocks past 4 failed after they were published.
 */
interface Fault {
  name: string;
  harnessOptions(): Partial<Parameters<typeof createFollowerHarness>[0]>;
  on(pool: Pool): Promise<void>;
  off(pool: Pool): Promise<void>;
  failed: Promise<void>;
}

function checkpointRefused(): Fault {
  let failedNow: () => void = () => {};
  const failed = new Promise<void>((r) => {
    failedNow = r;
  });
  return {
    name: 'PostgreSQL refuses the checkpoint',
    harnessOptions: () => ({}),
    async on(pool) {
      // The trigger refuses every checkpoint past 4 and first notes the block it refused in a
      // sequence: setval outlives the rollback of the refused transaction, so the test sees it.
      await pool.query(`
        CREATE SEQUENCE refused_checkpoint MINVALUE 0 START 0;
        CREATE FUNCTION refuse_checkpoint_past_4() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.block_number > 4 THEN
            PERFORM setval('refused_checkpoint', GREATEST(NEW.block_number, (SELECT last_value FROM refused_checkpoint)));
            RAISE EXCEPTION 'checkpoint % refused', NEW.block_number;
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER refuse_checkpoint_past_4 BEFORE INSERT OR UPDATE ON follower_checkpoints
          FOR EACH ROW EXECUTE FUNCTION refuse_checkpoint_past_4();`);
      // A checkpoint is written only after its blocks were published: once 8 was refused, all of
      // 5..8 went out and none was checkpointed.
      const poll = async () => {
        for (;;) {
          const { rows } = await pool.query<{ n: string }>(
            'SELECT last_value::text AS n FROM refused_checkpoint',
          );
          if (Number(rows[0]?.n) >= 8) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        failedNow();
      };
      void poll();
    },
    async off(pool) {
      await pool.query(`
        DROP TRIGGER refuse_checkpoint_past_4 ON follower_checkpoints;
        DROP FUNCTION refuse_checkpoint_past_4;
        DROP SEQUENCE refused_checkpoint;`);
    },
    failed,
  };
}

function ackLost(): Fault {
  let failing = false;
  let failedNow: () => void = () => {};
  const failed = new Promise<void>((r) => {
    failedNow = r;
  });
  return {
    name: "Kafka's acknowledgement is lost",
    harnessOptions: () => ({
      wrapPublisher: (real: BlockPublisher): BlockPublisher => ({
        async publish(events) {
          await real.publish(events);
          if (!failing) return;
          if (events.some((e) => e.block.number > 4)) failedNow();
          throw new Error('request timed out (the broker had appended the batch)');
        },
      }),
    }),
    async on() {
      failing = true;
    },
    async off() {
      failing = false;
    },
    failed,
  };
}

/** Per height, the block a consumer ends with: each event replaces the last, `removed` takes its own hash away. */
function finalBlocks(events: BlockEvent[]): Map<number, string> {
  const latest = new Map<number, string>();
  for (const e of events) {
    if (e.type !== 'removed') latest.set(e.block.number, e.block.hash);
    else if (latest.get(e.block.number) === e.block.hash) latest.delete(e.block.number);
  }
  return latest;
}

describe('the follower after a step that failed once its blocks were published', { timeout: 120_000 }, () => {
  for (const make of [checkpointRefused, ackLost]) {
    const fault = make();
    it(`${fault.name}, then the node drops those blocks: a consumer gets them removed and ends on the chain's blocks`, async () => {
      const anvil = await startAnvil();
      cleanup.push(() => anvil.stop());
      const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
      const harness = await createFollowerHarness({
        rpcUrl: anvil.rpcUrl,
        options: { confirmations: 10, headBatchBlocks: 10, haltRecheckMs: 300 },
        ...fault.harnessOptions(),
      });
      cleanup.push(() => harness.close());
      await rpc(client, 'anvil_mine', ['0x4']);
      const follower = harness.startFollower();
      await harness.waitFollowed(follower);
      expect(follower.follower.status().checkpoint).toBe(4);

      const snapshot = await rpc(client, 'evm_snapshot');
      await fault.on(harness.pool);
      await rpc(client, 'anvil_mine', ['0x4']); // 5..8: published, never checkpointed
      await fault.failed;
      const orphans = await Promise.all(
        [5, 6, 7, 8].map(async (n) => (await harness.rpc.client.getBlock({ blockNumber: BigInt(n) })).hash),
      );
      const orphanTime = (await harness.rpc.client.getBlock({ blockNumber: 8n })).timestamp;
      await rpc(client, 'evm_revert', [snapshot]);
      // Empty blocks on the same parent with the same timestamp would be the same blocks again:
      // the new branch's are later, so every one of 5..8 is really another block.
      await rpc(client, 'evm_setNextBlockTimestamp', [`0x${(orphanTime + 100n).toString(16)}`]);
      await rpc(client, 'anvil_mine', ['0x6']); // 5'..10'
      await fault.off(harness.pool);
      await harness.waitFollowed(follower, 60_000);
      await follower.stop();

      const events = await harness.readEvents();
      const published = new Set(events.filter((e) => e.type !== 'removed').map((e) => e.block.hash));
      // The orphans did go out (the fault came after the publish) ...
      expect(orphans.filter((h) => published.has(h))).toEqual(orphans);
      // ... and every height ends on the chain's own block, each orphan taken back by `removed`.
      const ends = finalBlocks(events);
      const chain = await Promise.all(
        Array.from(
          { length: 11 },
          async (_, n) => (await harness.rpc.client.getBlock({ blockNumber: BigInt(n) })).hash,
        ),
      );
      expect(chain.filter((h) => orphans.includes(h))).toEqual([]);
      expect([...ends.entries()].sort(([a], [b]) => a - b)).toEqual(chain.map((h, n) => [n, h]));
      const removed = new Set(events.filter((e) => e.type === 'removed').map((e) => e.block.hash));
      expect(orphans.filter((h) => !removed.has(h))).toEqual([]);
    });
  }
});
