import { describe, expect, it } from 'vitest';
import { runChaos } from '../chaos/runChaos.ts';

// A short run of the chaos command (`pnpm chaos` runs the long one): the whole stack on servers
// of its own, SIGKILLs of Redis, Kafka, PostgreSQL and the matcher while events flow, then every
// webhook and every row counted against the chain.
describe('chaos, short run', () => {
  it('SIGKILL of Redis, Kafka, PostgreSQL and the matcher under load: no webhook lost, no row missing or doubled', async () => {
    const report = await runChaos({
      events: 3_000,
      logsPerTx: 100,
      kills: 4,
      seconds: 45,
      receiverLatencyMs: 100,
      settleTimeoutMs: 150_000,
      targets: ['redis', 'kafka', 'pg', 'stream-matcher'],
      log: (line) => console.log(`[chaos] ${line}`),
    });
    expect(report.kills).toEqual({ redis: 1, kafka: 1, pg: 1, 'stream-matcher': 1 });
    expect(report.webhooks).toMatchObject({
      expected: 120,
      delivered: 120,
      lost: 0,
      duplicatesWithNewId: 0,
      unexpected: 0,
      badSignatures: 0,
    });
    // The streams created during the run (one while Kafka was down): every block after their
    // calls answered, nothing before their start block.
    expect(report.lateStreams.map((s) => s.tag).sort()).toEqual([
      'chaos-late-kafka-down',
      'chaos-late-mid-run',
    ]);
    expect(report.lateWebhooks.expected).toBeGreaterThan(0);
    expect(report.lateWebhooks).toMatchObject({
      delivered: report.lateWebhooks.expected,
      lost: 0,
      duplicatesWithNewId: 0,
      unexpected: 0,
      badSignatures: 0,
    });
    expect(report.strayWebhooks).toBe(0);
    for (const [table, count] of Object.entries(report.rows))
      expect({ table, missing: count.missing, duplicated: count.duplicated, extra: count.extra }).toEqual({
        table,
        missing: 0,
        duplicated: 0,
        extra: 0,
      });
    expect(report.rows['logs']?.expected).toBe(3_000);
  }, 360_000);
});
