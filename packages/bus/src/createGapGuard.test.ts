import type { BlockEvent } from '@tributary/schema';
import { createKafkaTopic, getTestSettings, uniqueName } from '@tributary/testkit';
import { createLogger } from '@tributary/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { type Gap, createGapGuard } from './createGapGuard.ts';
import { createKafka } from './createKafka.ts';

const settings = getTestSettings();
const kafka = createKafka({
  clientId: 'gap-test',
  brokers: settings.kafkaBrokers,
  logger: createLogger('gap-test', 'silent'),
});
const admin = kafka.admin();
afterAll(() => admin.disconnect());

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const event = (type: BlockEvent['type'], chainId: number, number: number) =>
  ({
    type,
    v: 2,
    chainId,
    block: { number, hash: h(number), parentHash: h(number - 1), timestamp: number },
  }) as BlockEvent;

/** A guard over a real topic, whose follower side (positions, checkpoints, requests) is written down. */
async function guard(opts: {
  topic: string;
  groupId: string;
  positions?: Map<number, number>;
  checkpoints?: Map<number, number>;
}) {
  await admin.connect();
  const requested: { chainId: number; fromBlock: number; toBlock: number }[] = [];
  const gaps: Gap[] = [];
  const saved: Map<number, number>[] = [];
  const g = createGapGuard({
    admin,
    topic: opts.topic,
    groupId: opts.groupId,
    positions: { load: async () => new Map(opts.positions), save: async (p) => void saved.push(new Map(p)) },
    checkpoints: async () => new Map(opts.checkpoints ?? [[31337, 100]]),
    requestRepublish: async (chainId, fromBlock, toBlock) => {
      requested.push({ chainId, fromBlock, toBlock });
      return String(requested.length);
    },
    requestProgress: async () => ({ done: false, nextBlock: 0 }),
    logger: { error: () => undefined, info: () => undefined },
    onGap: (gap) => gaps.push(gap),
    flushMs: 60_000,
  });
  return { g, requested, gaps, saved };
}

describe('createGapGuard', () => {
  it('a chain whose new blocks skip some: exactly the skipped blocks are published again; replays, removals and older blocks are no gap', async () => {
    const { g, requested, gaps } = await guard({ topic: uniqueName('t'), groupId: uniqueName('g') });
    for (const e of [
      event('new', 31337, 10),
      event('new', 31337, 11),
      event('confirmed', 31337, 9),
      event('removed', 31337, 11),
      event('new', 31337, 11),
      event('confirmed', 31337, 5), // a requested backfill
      event('new', 7, 500), // another chain: its own sequence
      event('new', 31337, 15),
      event('new', 7, 501),
    ])
      await g.readEvent(e);
    expect(gaps).toEqual([{ kind: 'blocks', chainId: 31337, after: 11, read: 15 }]);
    expect(requested).toEqual([{ chainId: 31337, fromBlock: 12, toBlock: 14 }]);
    await expect(g.check()).rejects.toThrow(
      /chain 31337 jumped from block 11 to 15\): 1 range\(s\) being published again/,
    );
    await g.stop();
  });

  it('a new generation: the blocks another member read while this one stood by are no gap', async () => {
    const topic = await createKafkaTopic(uniqueName('gap'), 1);
    const { g, gaps } = await guard({ topic, groupId: uniqueName('g') });
    g.joined({ [topic]: [0] });
    await g.readEvent(event('new', 31337, 10));
    g.joined({ [topic]: [] }); // a standby now: the active member reads 11..19
    g.joined({ [topic]: [0] }); // it takes over from the committed offset
    await g.readEvent(event('new', 31337, 20));
    await g.readEvent(event('new', 31337, 22));
    expect(gaps).toEqual([{ kind: 'blocks', chainId: 31337, after: 20, read: 22 }]);
    await g.stop();
  });

  it('offsets that do not follow each other: every followed chain is published again after its position; its own seeks are no gap', async () => {
    const topic = await createKafkaTopic(uniqueName('gap'), 1);
    const { g, requested, gaps, saved } = await guard({
      topic,
      groupId: uniqueName('g'),
      positions: new Map([[31337, 40]]),
      checkpoints: new Map([
        [31337, 100],
        [7, 20],
      ]),
    });
    g.joined({ [topic]: [0] });
    await g.read(0, '0');
    await g.read(0, '1');
    g.sought(0, '0'); // a rewind after a failed transaction
    await g.read(0, '0');
    await g.read(0, '1');
    expect(gaps).toEqual([]);
    g.processed(event('confirmed', 31337, 45));
    g.processed(event('new', 31337, 48));
    await g.read(0, '7');
    expect(gaps).toEqual([{ kind: 'offsets', partition: 0, expected: '2', read: '7' }]);
    expect(requested).toEqual([
      { chainId: 31337, fromBlock: 46, toBlock: 100 },
      { chainId: 7, fromBlock: 0, toBlock: 20 },
    ]);
    await g.stop();
    expect(saved).toEqual([new Map([[31337, 45]])]);
  });
});
