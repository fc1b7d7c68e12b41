import type { WebhookCounts } from '../kinds/countStreamWebhooks.ts';
import type { ChaosReport } from './runChaos.ts';

const HEADER = `${'stream kind'.padEnd(36)} ${['expected', 'delivered', 'lost', 'dup', 'new-id', 'unexp', 'notices', 'items missing/extra'].map((h) => h.padStart(9)).join(' ')}`;

function row(name: string, w: WebhookCounts): string {
  const cells = [
    w.expected,
    w.delivered,
    w.lost,
    w.duplicated,
    w.duplicatesWithNewId,
    w.unexpected,
    `${w.notices.delivered}/${w.notices.expected}`,
    `${w.items.missing}/${w.items.extra} of ${w.items.expected}`,
  ];
  return `${name.padEnd(36)} ${cells.map((c) => String(c).padStart(9)).join(' ')}`;
}

const seconds = (ms: number | null) =>
  ms === null ? 'not within the settle time' : `${(ms / 1000).toFixed(1)} s`;

/** The chaos report as the command prints it: per kind, then faults, rows and the verdict. */
export function formatChaosReport(r: ChaosReport, tookMs: number): string {
  const samples = [...r.kinds.map((k) => k.webhooks), ...r.lateStreams.map((l) => l.webhooks)].flatMap(
    (w) => [...w.lostSample.map((s) => `  lost: ${s}`), ...w.itemSample.map((s) => `  item: ${s}`)],
  );
  const f = r.faults;
  return `
contract-log events    ${r.events} in ${r.blocks} blocks
kills                  ${Object.entries(r.kills)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')} (${Object.values(r.kills).reduce((a, b) => a + b, 0)} in all)
unplanned exits        ${Object.entries(r.unplannedExits)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}
follower outages       ${f.outages
    .map(
      (o) =>
        `${o.how} ${((o.until - o.from) / 1000).toFixed(0)} s over blocks ${o.headFrom}..${o.headUntil}: ${o.catchUp ? `caught up in backfill mode (block ${o.catchUp.block} of ${o.catchUp.head})` : 'NO catch-up seen'}`,
    )
    .join('; ')}
slow provider          ${f.slowProvider ? `${((f.slowProvider.until - f.slowProvider.from) / 1000).toFixed(0)} s at ${f.slowProvider.latenciesMs.join('/')} ms, ${f.slowProvider.calls} calls` : 'none'}
requested backfill     ${f.requestedBackfill ? `blocks ${f.requestedBackfill.fromBlock}..${f.requestedBackfill.toBlock}, done ${seconds(f.requestedBackfill.doneAfterMs)} after the request` : 'none'}
reorgs                 ${f.reorgs.map((g) => `${g.depth} from ${g.fromBlock}${g.seenByFollower ? '' : ' (unseen)'}`).join(', ')}
activity errors        ${f.activityErrors.length}

${HEADER}
${r.kinds.map((k) => row(k.title, k.webhooks)).join('\n')}
${r.lateStreams.map((l) => row(`${l.label} (after ${l.fromBlock})`, l.webhooks)).join('\n')}
${samples.slice(0, 20).join('\n')}
bad signatures         ${[...r.kinds.map((k) => k.webhooks), ...r.lateStreams.map((l) => l.webhooks)].reduce((n, w) => n + w.badSignatures, 0)}
webhooks of no stream  ${r.strayWebhooks}
rows (missing / duplicated / extra of expected):
${Object.entries(r.rows)
  .map(([t, c]) => `  ${t.padEnd(20)} ${c.missing} / ${c.duplicated} / ${c.extra} of ${c.expected}`)
  .join('\n')}
back at head           ${seconds(r.backAtHeadMs)} after the last fault
all webhooks in        ${seconds(r.allDeliveredMs)} after the last fault
run took               ${(tookMs / 1000).toFixed(0)} s
result                 ${r.ok ? 'OK: nothing lost, nothing doubled under a new webhook-id' : 'FAILED'}`;
}
