import type { Growth } from './judgeGrowth.ts';
import type { SoakSample } from './soakSample.ts';
import { vacuumedTables } from './soakSeries.ts';
import type { SoakSummary } from './summarizeSoak.ts';

/** A point per full collection: how many there were is part of the verdict; so is one not judged. */
function verdictOf(g: Growth): string {
  const notes = [
    ...(g.perEvent ? [`${g.samples} full GCs`] : []),
    ...(g.judgedBy ? ['not judged: its snapshots are'] : []),
  ];
  return notes.length ? `${g.verdict} (${notes.join('; ')})` : g.verdict;
}

/** The soak's report for the terminal: per-minute samples, growth per hour, the 30-day disk, the goals. */
export function formatSoakReport(samples: readonly SoakSample[], s: SoakSummary, heading: string): string {
  const lines = [heading, '', 'Per sample (rates and percentiles over the interval before it):'];
  lines.push(
    row([
      'minute',
      'blocks',
      'delivered/s',
      'POSTs/s',
      'latency p50',
      'p99',
      'pending',
      'matcher lag',
      'db',
      'pg_wal',
      'kafka',
      'redis',
      'RSS of the five',
    ]),
  );
  for (const x of samples) {
    const rss = Object.values(x.services).reduce((a, p) => a + p.rssBytes, 0);
    lines.push(
      row([
        x.minute.toFixed(1),
        String(x.pipeline.blocks),
        x.delivery.deliveredPerSecond.toFixed(0),
        x.delivery.requestsPerSecond.toFixed(0),
        ms(x.latency.p50Ms),
        ms(x.latency.p99Ms),
        String(x.delivery.pending ?? '-'),
        String(x.pipeline.matcherLagMessages ?? '-'),
        bytes(x.postgres?.databaseBytes),
        bytes(x.postgres?.walDirBytes),
        bytes(x.kafka.logDirBytes),
        bytes(x.redis?.usedMemoryBytes),
        bytes(rss),
      ]),
    );
  }
  lines.push(...sharedPerSample(samples));
  lines.push(
    '',
    `Growth per hour after a ${s.warmupMinutes}-minute warm-up (least-squares slope ± two standard errors; tables and indexes under 1 MiB left out, all in the JSON):`,
    row(['quantity', 'first', 'last', 'per hour', '%/h', 'later half, per hour', 'verdict'], 58),
  );
  for (const g of s.growth) {
    if (g.unit === 'bytes' && g.kind === 'disk' && Math.max(g.first, g.last) < 2 ** 20) continue;
    lines.push(
      row(
        [
          g.quantity,
          value(g, g.first),
          value(g, g.last),
          perHour(g),
          g.percentOfMeanPerHour.toFixed(1),
          g.laterHalf === null
            ? '-'
            : `${g.laterHalf.perHour >= 0 ? '+' : ''}${value(g, g.laterHalf.perHour)} ± ${value(g, 2 * g.laterHalf.perHourStdErr)}`,
          verdictOf(g),
        ],
        58,
      ),
    );
  }
  lines.push(
    '',
    `Disk after 30 days of this load, from the size at the end of the run (${s.runHours.toFixed(2)} h):`,
  );
  lines.push(row(['store', 'now', 'growth/h', '30 days', 'without retention', 'retention'], 44));
  for (const d of [...s.disk].sort((a, b) => b.bytes - a.bytes)) {
    if (d.bytesAtEnd < 2 ** 20 && d.perHour < 2 ** 20) continue;
    lines.push(
      row(
        [
          d.store,
          bytes(d.bytesAtEnd),
          bytes(d.perHour),
          bytes(d.bytes),
          bytes(d.withoutRetentionBytes),
          d.retention,
        ],
        44,
      ),
    );
  }
  const t = s.diskTotal;
  lines.push(
    row(
      [
        'total (every store)',
        bytes(t.bytesAtEnd),
        '',
        bytes(t.projected30dBytes),
        bytes(t.withoutRetention30dBytes),
        '',
      ],
      44,
    ),
  );
  lines.push(
    '',
    'Projection: without retention, size_end + growth/h × (720 h − run h); with a retention of R hours, size_end +',
    'growth/h × max(0, min(R, 720 h) − run h): the steady state once R has passed, when retention deletes per hour',
    'what the load adds, so the store holds R hours of growth (a Kafka topic: R plus the time its segment takes to',
    'roll); pg_wal at most max(size_end, max_wal_size + wal_keep_size). Chain data (blocks, logs, transfers, ...) has',
    "no retention by design: it is the index. Each store's formula with its numbers is in the JSON.",
    '',
    'Goals:',
  );
  const labels: Record<keyof SoakSummary['goals'], string> = {
    memoryFlat: 'memory flat or levelling off',
    diskBoundedByRetention: 'disk bounded by retention',
    latencySteady: 'latency not degrading',
    deliveryRateSteady: 'delivery rate not degrading',
  };
  for (const [k, label] of Object.entries(labels)) {
    const g = s.goals[k as keyof SoakSummary['goals']];
    lines.push(`  ${label.padEnd(30)} ${g.status}${g.offenders.length ? `: ${g.offenders.join(', ')}` : ''}`);
  }
  if (s.latencyAgainstLoad.some((l) => l.related.length > 0)) {
    lines.push(
      '',
      "Each latency against what PostgreSQL and the machine did, sample by sample after warm-up (Pearson's r,",
      'the strongest three; several latencies moving with one load point to it, none to the service itself):',
    );
    for (const l of s.latencyAgainstLoad)
      lines.push(
        `  ${l.latency.padEnd(58)} ${
          l.related.map((c) => `${c.load} ${c.r >= 0 ? '+' : ''}${c.r.toFixed(2)}`).join(', ') || '-'
        }`,
      );
  }
  return lines.join('\n');
}

/** PostgreSQL's processes together (backends, autovacuum, checkpointer, ...), in cores. */
const postgresCores = (processes: Record<string, number>) =>
  Object.entries(processes).reduce(
    (sum, [group, cores]) => (group.startsWith('postgres') ? sum + cores : sum),
    0,
  );

/** What the parts every service shares did in each interval: the machine's CPU and PostgreSQL's maintenance. */
function sharedPerSample(samples: readonly SoakSample[]): string[] {
  if (!samples.some((x) => x.postgresActivity || x.host)) return [];
  const lines = [
    '',
    "What the shared parts did per sample (the machine's CPU and PostgreSQL's in cores; a fixed JS workload's time, the machine's speed; PostgreSQL's writes and reads per second):",
    row([
      'minute',
      'CPU busy',
      'I/O wait',
      'stolen',
      'postgres CPU',
      'JS workload',
      'checkpoints',
      'ckpt writes',
      'backend wr.',
      'reads',
      'hit %',
      'dead tuples',
      'vacuum (autovacuum finished, or running)',
    ]),
  ];
  for (const x of samples) {
    const a = x.postgresActivity;
    const h = x.host;
    lines.push(
      row([
        x.minute.toFixed(1),
        h ? h.busyCores.toFixed(2) : '-',
        h ? h.iowaitCores.toFixed(2) : '-',
        h ? h.stealCores.toFixed(2) : '-',
        h?.processes ? postgresCores(h.processes).toFixed(2) : '-',
        h?.jsWorkloadMs === undefined ? '-' : ms(h.jsWorkloadMs),
        a ? String(a.checkpoints) : '-',
        a ? `${bytes(a.checkpointWriteBytesPerSecond)}/s` : '-',
        a?.backendWriteBytesPerSecond == null ? '-' : `${bytes(a.backendWriteBytesPerSecond)}/s`,
        a ? `${bytes(a.readBytesPerSecond)}/s` : '-',
        a?.bufferHitPercent == null ? '-' : a.bufferHitPercent.toFixed(2),
        a ? String(a.deadTuples) : '-',
        a ? ` ${vacuumedTables(a).join(' ') || '-'}` : '-',
      ]).trimEnd(),
    );
  }
  return lines;
}

function row(cells: string[], first = 8): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(first) : c.padStart(12))).join(' ');
}

function bytes(b: number | null | undefined): string {
  if (b === null || b === undefined || Number.isNaN(b)) return '-';
  const abs = Math.abs(b);
  if (abs >= 2 ** 30) return `${(b / 2 ** 30).toFixed(2)} GiB`;
  if (abs >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  return `${(b / 2 ** 10).toFixed(0)} KiB`;
}

// A sample written to JSON holds null where it had NaN (no webhook in the interval).
const ms = (v: number | null) => (v === null || Number.isNaN(v) ? '-' : `${v.toFixed(0)} ms`);

function value(g: Growth, v: number): string {
  if (g.unit === 'bytes') return bytes(v);
  if (g.unit === 'bytes/s') return `${bytes(v)}/s`;
  if (g.unit === 'cores') return `${v.toFixed(2)} cores`;
  if (g.unit === 'ms') return ms(v);
  return `${v.toFixed(g.unit === 'count' ? 0 : 1)}${g.unit === 'count' ? '' : ` ${g.unit}`}`;
}

function perHour(g: Growth): string {
  const sign = g.perHour >= 0 ? '+' : '';
  const err = g.perHourStdErr === null ? '' : ` ± ${value(g, 2 * g.perHourStdErr)}`;
  return `${sign}${value(g, g.perHour)}${err}`;
}
