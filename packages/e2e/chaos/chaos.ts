// The chaos command (`pnpm chaos`): the whole stack on servers of its own, 100,000 on-chain events
// with three streams active and two more created during the run (one while Kafka is down), SIGKILLs
// of every app and every server at random moments, then what arrived and what the tables hold,
// counted against the chain. Options (or CHAOS_* variables):
//   --events N (100000)  --logs-per-tx N (250)  --kills N (24)  --seconds N (240)
//   --latency-ms N (300, the receiver's answer time)  --settle-ms N (600000)
// Writes bench/results/chaos.json; exits 1 when a webhook or a row was lost or doubled wrongly.
import { writeResult } from '@tributary/testkit/bench';
import { runChaos } from './runChaos.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const env = process.env[`CHAOS_${name.toUpperCase().replaceAll('-', '_')}`];
  return Number(i >= 0 ? process.argv[i + 1] : (env ?? fallback));
};

const options = {
  events: arg('events', 100_000),
  logsPerTx: arg('logs-per-tx', 250),
  kills: arg('kills', 24),
  seconds: arg('seconds', 240),
  receiverLatencyMs: arg('latency-ms', 300),
  settleTimeoutMs: arg('settle-ms', 600_000),
};
const log = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);
log(`options ${JSON.stringify(options)}`);
// Ctrl-C: leave through exit, whose handlers SIGKILL the supervised services.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const report = await runChaos({ ...options, log });

const w = report.webhooks;
const l = report.lateWebhooks;
console.log(`
events driven          ${report.events} in ${report.blocks} blocks
kills                  ${Object.entries(report.kills)
  .map(([k, v]) => `${k} ${v}`)
  .join(', ')} (${Object.values(report.kills).reduce((a, b) => a + b, 0)} in all)
unplanned exits        ${Object.entries(report.unplannedExits)
  .map(([k, v]) => `${k} ${v}`)
  .join(', ')}
webhooks expected      ${w.expected}
         delivered     ${w.delivered}
         lost          ${w.lost}${w.lostSample.length ? ` (e.g. ${w.lostSample.slice(0, 3).join(', ')})` : ''}
         duplicated    ${w.duplicated} (with a new webhook-id: ${w.duplicatesWithNewId})
         unexpected    ${w.unexpected}, bad signatures ${w.badSignatures}
streams created during the run
${report.lateStreams.map((s) => `  ${s.tag.padEnd(24)} ${s.id}: due after block ${s.fromBlock}`).join('\n')}
  webhooks expected    ${l.expected}, delivered ${l.delivered}, lost ${l.lost}${l.lostSample.length ? ` (e.g. ${l.lostSample.slice(0, 3).join(', ')})` : ''}
                       duplicated ${l.duplicated} (with a new webhook-id: ${l.duplicatesWithNewId}), unexpected ${l.unexpected}, bad signatures ${l.badSignatures}
webhooks of no stream  ${report.strayWebhooks}
rows (missing / duplicated / extra of expected):
${Object.entries(report.rows)
  .map(([t, c]) => `  ${t.padEnd(20)} ${c.missing} / ${c.duplicated} / ${c.extra} of ${c.expected}`)
  .join('\n')}
back at head           ${report.backAtHeadMs === null ? 'not within the settle time' : `${(report.backAtHeadMs / 1000).toFixed(1)} s after the last restart`}
all webhooks in        ${report.allDeliveredMs === null ? 'not within the settle time' : `${(report.allDeliveredMs / 1000).toFixed(1)} s after the last restart`}
result                 ${report.ok ? 'OK: nothing lost, nothing doubled' : 'FAILED'}`);
console.log(`written to ${writeResult('chaos', { options, ...report })}`);
process.exit(report.ok ? 0 : 1);
