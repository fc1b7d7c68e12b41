import { describe, expect, it } from 'vitest';
import { judgeStatus } from './judgeStatus.ts';
import type { StatusSnapshot } from './readStatus.ts';

const look = (at: number, over: Partial<StatusSnapshot> = {}): StatusSnapshot => ({
  at,
  chains: [{ chainId: 1, head: 100, checkpoint: 100, checkpointUpdatedAt: new Date(0), projected: 100 }],
  consumers: [{ group: 'g', topic: 't', lag: 0, committed: 10 }],
  queue: { waiting: 0, active: 0, delayed: 0, prioritized: 0, failed: 0 },
  deliveries: { pending: 0, held: 0, failed: 0, oldestPendingAt: null },
  streams: { active: 1 },
  services: [{ name: 'projector', url: 'http://127.0.0.1:9102', ready: true }],
  unreadable: [],
  ...over,
});

describe('judgeStatus', () => {
  it('nothing waiting: nothing stuck', () => {
    expect(judgeStatus(look(0), look(5_000))).toEqual([]);
  });

  it('work waiting that moved between the looks is not stuck', () => {
    const before = look(0, {
      chains: [{ chainId: 1, head: 120, checkpoint: 100, checkpointUpdatedAt: new Date(0), projected: 90 }],
      consumers: [{ group: 'g', topic: 't', lag: 50, committed: 10 }],
      queue: { waiting: 40, active: 8 },
      deliveries: { pending: 48, held: 0, failed: 0, oldestPendingAt: new Date(0) },
    });
    const after = look(5_000, {
      chains: [{ chainId: 1, head: 125, checkpoint: 110, checkpointUpdatedAt: new Date(0), projected: 105 }],
      consumers: [{ group: 'g', topic: 't', lag: 45, committed: 25 }],
      queue: { waiting: 30, active: 8 },
      deliveries: { pending: 38, held: 0, failed: 0, oldestPendingAt: new Date(0) },
    });
    expect(judgeStatus(before, after)).toEqual([]);
  });

  it('names each part that made no progress with work waiting', () => {
    const stuck = look(0, {
      chains: [{ chainId: 1, head: 120, checkpoint: 100, checkpointUpdatedAt: new Date(0), projected: 90 }],
      consumers: [{ group: 'stream-matcher', topic: 't', lag: 7, committed: 10 }],
      queue: { waiting: 3, active: 0, delayed: 0 },
      deliveries: { pending: 3, held: 0, failed: 0, oldestPendingAt: new Date(0) },
    });
    expect(judgeStatus(stuck, { ...stuck, at: 5_000 })).toEqual([
      'chain 1: the follower is stuck at block 100, 20 behind the head',
      'chain 1: the query tables are stuck at block 90, 10 behind the follower',
      'consumer group stream-matcher: 7 messages behind and no offset committed meanwhile',
      'webhook queue: 3 jobs waiting and no worker taking them',
    ]);
  });

  it("a follower beyond the node's head: another chain, or a node that fell behind", () => {
    const s = look(0, {
      chains: [
        { chainId: 1, head: 1_088, checkpoint: 8_248, checkpointUpdatedAt: new Date(0), projected: 8_248 },
      ],
    });
    expect(judgeStatus(s, { ...s, at: 5_000 })).toEqual([
      "chain 1: the follower is at block 8248, beyond the node's head 1088 (another chain, or a node that fell behind)",
    ]);
  });

  it('pending deliveries without any job: the relay is not doing its work', () => {
    const s = look(0, { deliveries: { pending: 12, held: 0, failed: 0, oldestPendingAt: new Date(0) } });
    expect(judgeStatus(s, { ...s, at: 5_000 })).toEqual([
      "12 pending deliveries and no job in the webhook queue (is the sender's relay running?)",
    ]);
  });

  it('one look judges only what it shows: readiness, answers, unreadable sources, an unknown head', () => {
    const s = look(0, {
      chains: [{ chainId: 1, headError: 'fetch failed', checkpoint: 100, checkpointUpdatedAt: new Date(0) }],
      consumers: [{ group: 'g', topic: 't', lag: 7, committed: 10 }],
      services: [
        {
          name: 'projector',
          url: 'http://127.0.0.1:9102',
          ready: false,
          detail: 'watchdog: no progress for 61 s',
        },
        { name: 'gateway', url: 'http://127.0.0.1:8080', detail: 'no answer (fetch failed)' },
      ],
      unreadable: [{ source: 'redis', error: 'connect ECONNREFUSED 127.0.0.1:56379' }],
    });
    expect(judgeStatus(s, s)).toEqual([
      'redis cannot be read: connect ECONNREFUSED 127.0.0.1:56379',
      'projector is not ready: watchdog: no progress for 61 s',
      'gateway does not answer at http://127.0.0.1:8080: no answer (fetch failed)',
      "chain 1: the node's head is unknown (fetch failed)",
    ]);
  });
});
