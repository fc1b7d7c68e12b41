import { describe, expect, it } from 'vitest';
import { formatChaosReport } from '../chaos/formatChaosReport.ts';
import { runChaos } from '../chaos/runChaos.ts';

// A short run of the chaos command (`pnpm chaos` runs the long one): the whole stack on servers
// of its own, every kind of stream, SIGKILLs of Redis, Kafka, PostgreSQL and the matcher while
// blocks of every kind's activity are mined, the follower kept down until it has to catch up, a
// slow provider, a requested backfill and three reorgs; then every webhook, its items and every
// row counted against the chain.
describe('chaos, short run', () => {
  it('every kind of stream through SIGKILLs, a follower outage, a slow provider, a backfill and reorgs: nothing lost, nothing wrong', async () => {
    const started = Date.now();
    const report = await runChaos({
      events: 3_000,
      logsPerTx: 50,
      kills: 4,
      seconds: 60,
      outages: 1,
      outageSeconds: 12,
      reorgs: 3,
      slowProviderSeconds: 10,
      share: 0.7,
      receiverLatencyMs: 100,
      settleTimeoutMs: 180_000,
      targets: ['redis', 'kafka', 'pg', 'stream-matcher'],
      log: (line) => console.log(`[chaos] ${line}`),
    });
    console.log(formatChaosReport(report, Date.now() - started));
    expect(report.kills).toEqual({ redis: 1, kafka: 1, pg: 1, 'stream-matcher': 1 });
    // The follower came back from its outage in catch-up (blocks already final published at once).
    expect(report.faults.outages).toHaveLength(1);
    expect(report.faults.outages[0]!.catchUp).not.toBeNull();
    expect(report.faults.requestedBackfill?.doneAfterMs).not.toBeNull();
    expect(report.faults.reorgs.filter((r) => r.seenByFollower).length).toBeGreaterThan(0);

    expect(report.kinds.map((k) => k.kind)).toEqual([
      'nativeTransfers',
      'internalTransactions',
      'contractLogs',
      'erc20Transfers',
      'erc20Approvals',
      'erc721Transfers',
      'erc1155Transfers',
      'allAddresses',
      'advancedFilter',
      'trigger',
      'nativeBalances',
      'removalNotices',
    ]);
    for (const { kind, webhooks: w } of report.kinds) {
      expect({ kind, due: w.expected > 0 }).toEqual({ kind, due: true });
      expect({ kind, ...w, lostSample: [], itemSample: w.itemSample.slice(0, 3) }).toEqual({
        kind,
        expected: w.expected,
        delivered: w.expected,
        lost: 0,
        duplicated: w.duplicated,
        duplicatesWithNewId: 0,
        unexpected: 0,
        badSignatures: 0,
        notices: { expected: w.notices.expected, delivered: w.notices.expected },
        items: { expected: w.items.expected, missing: 0, extra: 0 },
        lostSample: [],
        itemSample: [],
      });
    }
    // A removal notice for each orphaned block whose unconfirmed webhook arrived (a reorg the follower saw).
    expect(report.kinds.find((k) => k.kind === 'removalNotices')!.webhooks.notices.expected).toBeGreaterThan(
      0,
    );

    // The streams created during the run (one while Kafka was down): every block after their
    // calls answered, nothing before their start block.
    expect(report.lateStreams.map((s) => s.label).sort()).toEqual([
      'internalTransactions-late-mid-run',
      'nativeTransfers-late-kafka-down',
    ]);
    for (const { label, webhooks: w } of report.lateStreams)
      expect({
        label,
        due: w.expected > 0,
        lost: w.lost,
        newIds: w.duplicatesWithNewId,
        unexpected: w.unexpected,
        items: w.items.missing + w.items.extra,
      }).toEqual({
        label,
        due: true,
        lost: 0,
        newIds: 0,
        unexpected: 0,
        items: 0,
      });
    expect(report.strayWebhooks).toBe(0);
    for (const [table, count] of Object.entries(report.rows))
      expect({ table, missing: count.missing, duplicated: count.duplicated, extra: count.extra }).toEqual({
        table,
        missing: 0,
        duplicated: 0,
        extra: 0,
      });
    expect(report.events).toBeGreaterThanOrEqual(3_000);
  }, 600_000);
});
