// The soak command (`npm run soak -- --minutes 60`): the whole stack on servers of its own under a
// sustained load for `--minutes`, every service's memory and event-loop delay, every table's and
// index's size, WAL, Kafka's log, Redis's memory, the block-to-webhook latency and the delivery
// rate sampled every `--sample-seconds`, with what PostgreSQL (checkpoints, vacuums, reads) and the
// machine's CPU did; then each quantity's growth per hour after warm-up, each latency against those,
// and the disk a 30-day run would reach. Options (or SOAK_* variables):
//   --minutes N (60)  --warmup-minutes N (10, at most a third of the run)  --sample-seconds N (60)
//   --streams N (100)  --logs N (300 Transfer logs per block)  --block-ms N (1000)
//   --origins N (10 receiver origins)  --fail-percent N (5)  --slow-percent N (5)  --slow-ms N (2000)
//   --api-rps N (20 data-interface requests per second)  --keep-data (keep the servers' data dir)
//   --heap-snapshots (a heap snapshot of every service at the end of warm-up and of the run, and what
//   each one's heap gained between them by kind: the JIT's code against the application's objects)
// Delivery retention is read from DELIVERY_RETENTION* variables, which the services inherit.
// Writes bench/results/soak.json; exits 0 (it measures, it never judges a run by a time), 130 when
// interrupted (the report then covers the samples so far). `--report <soak.json>` runs nothing: it
// reports again on the samples of a run written before (with this version's analysis).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from '@tributary/testkit/bench';
import { deliveryRetentionFromEnv } from './deliveryRetentionFromEnv.ts';
import { formatHeapGrowth } from './formatHeapGrowth.ts';
import { formatSoakReport } from './formatSoakReport.ts';
import { runSoak } from './runSoak.ts';
import { summarizeSoak } from './summarizeSoak.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const env = process.env[`SOAK_${name.toUpperCase().replaceAll('-', '_')}`];
  return Number(i >= 0 ? process.argv[i + 1] : (env ?? fallback));
};

const reportIndex = process.argv.indexOf('--report');
if (reportIndex >= 0) {
  const file = process.argv[reportIndex + 1];
  if (!file) throw new Error('--report needs the path of a soak.json');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as {
    options: { minutes: number; warmupMinutes: number };
    retentions: Parameters<typeof summarizeSoak>[1]['retentions'];
    samples: Parameters<typeof summarizeSoak>[0];
    heapGrowth?: Parameters<typeof formatHeapGrowth>[0];
    at?: string;
  };
  const again = summarizeSoak(saved.samples, {
    warmupMinutes: saved.options.warmupMinutes,
    retentions: saved.retentions,
    ...(saved.heapGrowth ? { heapGrowth: saved.heapGrowth } : {}),
  });
  console.log(
    formatSoakReport(saved.samples, again, `soak report of ${file} (${saved.at ?? 'undated'}), again`),
  );
  if (saved.heapGrowth) console.log(`\n${formatHeapGrowth(saved.heapGrowth)}`);
  process.exit(0);
}

const minutes = arg('minutes', 60);
const options = {
  minutes,
  warmupMinutes: arg('warmup-minutes', Math.min(10, Math.max(1, Math.floor(minutes / 3)))),
  sampleSeconds: arg('sample-seconds', 60),
  streams: arg('streams', 100),
  logsPerBlock: arg('logs', 300),
  blockMs: arg('block-ms', 1000),
  origins: arg('origins', 10),
  failPercent: arg('fail-percent', 5),
  slowPercent: arg('slow-percent', 5),
  slowMs: arg('slow-ms', 2000),
  // 20, not the 2 of before: a data interface in use, not idle. The gateway still collects rarely
  // (2 full collections after warm-up in 30 minutes at 800 webhooks/s): a run of hours judges it.
  apiPerSecond: arg('api-rps', 20),
};
const keepData = process.argv.includes('--keep-data') || process.env['SOAK_KEEP_DATA'] === 'true';
const heapSnapshots =
  process.argv.includes('--heap-snapshots') || process.env['SOAK_HEAP_SNAPSHOTS'] === 'true';
const delivery = deliveryRetentionFromEnv(process.env);
const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);
log(`options ${JSON.stringify(options)}; delivery retention: ${delivery.source}`);

const dir = mkdtempSync(join(tmpdir(), 'tributary-soak-'));
// Should this process die without stopping what it started (a SIGKILL), the guard does.
const guard = spawn(
  'bash',
  [fileURLToPath(new URL('stopWhenOrphaned.sh', import.meta.url)), String(process.pid), join(dir, 'servers')],
  {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  },
);
guard.unref();
// The first Ctrl-C (or SIGTERM, SIGHUP) ends the run early with its report; a second leaves at once (the guard stops the rest).
const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => {
    if (interrupted.signal.aborted) process.exit(130);
    log(`${signal}: stopping the load, then the stack (again to leave at once)`);
    interrupted.abort();
  });

const run = await runSoak({ ...options, heapSnapshots, dir, keepData, signal: interrupted.signal, log });
const summary = summarizeSoak(run.samples, {
  warmupMinutes: options.warmupMinutes,
  retentions: { ...run.retentions, delivery },
  ...(run.heapGrowth ? { heapGrowth: run.heapGrowth } : {}),
});
const mix = run.mix;
console.log(
  `\n${formatSoakReport(
    run.samples,
    summary,
    `soak: ${run.samples[run.samples.length - 1]?.minute.toFixed(1)} of ${minutes} minutes${run.stoppedEarly ? ' (interrupted)' : ''}; ` +
      `${options.streams} streams (${mix.allAddresses} allAddresses, ${mix.contract} contract, ${mix.nativeTxs} includeNativeTxs, ${mix.perAddress} per-address), ` +
      `a block of ${options.logsPerBlock} Transfer logs every ${options.blockMs} ms, receivers failing ${options.failPercent} % and slow ${options.slowPercent} % (${options.slowMs} ms); ` +
      `delivery retention: ${delivery.source}`,
  )}`,
);
if (run.heapGrowth) console.log(`\n${formatHeapGrowth(run.heapGrowth)}`);
console.log(`\nservice logs in ${join(dir, 'logs')}`);
console.log(
  `written to ${writeResult('soak', {
    options,
    streams: mix,
    retentions: { ...run.retentions, delivery },
    projection:
      'without retention: size_end + growth/h × (720 h − run h); with retention R h: size_end + growth/h × max(0, min(R, 720 h) − run h), the steady state after R (growth of what retention keeps); a Kafka topic: R + the hours its segment takes to roll; pg_wal: min(that, max(size_end, max_wal_size + wal_keep_size)); growth/h: the least-squares slope after warm-up, negative counted as 0',
    summary,
    ...(run.heapGrowth ? { heapGrowth: run.heapGrowth } : {}),
    samples: run.samples,
  })}`,
);
await new Promise<void>((r) => guard.stdin?.end('done\n', () => r()));
process.exit(run.stoppedEarly ? 130 : 0);
