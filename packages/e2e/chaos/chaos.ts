// The chaos command (`pnpm chaos`): the whole stack on servers of its own, every kind of stream
// (kinds/streamKinds.ts) driven by blocks of their activity with 100,000 contract-log events as
// the load, SIGKILLs of every app and every server at random moments, the follower stopped while
// blocks are mined (it comes back in catch-up), a slow provider, a requested backfill and shallow
// reorgs; then what arrived, per kind, and what the tables hold, counted against the chain.
// Options (or CHAOS_* variables):
//   --events N (100000)  --logs-per-tx N (250)  --kills N (24)  --seconds N (240)
//   --outages N (2)  --outage-seconds N (35)  --reorgs N (4)  --slow-seconds N (30)  --share X (0.7)
//   --latency-ms N (300, the receiver's answer time)  --settle-ms N (600000)
// Writes bench/results/chaos.json; exits 1 when a webhook, an item or a row was lost or doubled wrongly.
import { writeResult } from '@tributary/testkit/bench';
import { formatChaosReport } from './formatChaosReport.ts';
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
  outages: arg('outages', 2),
  outageSeconds: arg('outage-seconds', 35),
  reorgs: arg('reorgs', 4),
  slowProviderSeconds: arg('slow-seconds', 30),
  share: arg('share', 0.7),
  receiverLatencyMs: arg('latency-ms', 300),
  settleTimeoutMs: arg('settle-ms', 600_000),
};
const log = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);
log(`options ${JSON.stringify(options)}`);
// Ctrl-C: leave through exit, whose handlers SIGKILL the supervised services.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const started = Date.now();
const report = await runChaos({ ...options, log });
console.log(formatChaosReport(report, Date.now() - started));
console.log(`written to ${writeResult('chaos', { options, ...report })}`);
process.exit(report.ok ? 0 : 1);
