import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bulkTransferEmitterAbi, bulkTransferEmitterBytecode } from '@tributary/contracts';
import { devnetAccount } from '@tributary/devnet';
import { TRANSFER_TOPIC0 } from '@tributary/evm';
import { startChaosStack } from '../chaos/startChaosStack.ts';
import { APP_NAMES, type AppName } from '@tributary/testkit/bench';
import { createSoakSampler } from './createSoakSampler.ts';
import { type SoakStreamMix, createSoakStreams, soakStreamMix } from './createSoakStreams.ts';
import { type BlockDriver, driveSoakBlocks } from './driveSoakBlocks.ts';
import { readKafkaRetention } from './readKafkaDisk.ts';
import { readWalBound } from './readPostgresSizes.ts';
import type { SoakSample } from './soakSample.ts';
import { vacuumedTables } from './soakSeries.ts';
import { startApiLoad } from './startApiLoad.ts';
import {
  type HeapSnapshotGrowth,
  heapSnapshotGrowth,
  readHeapSnapshotSummary,
} from './summarizeHeapSnapshot.ts';
import { heapSnapshotNodeOptions, takeHeapSnapshots } from './takeHeapSnapshots.ts';
import { type ReceiverFaults, startSoakReceiver } from './startSoakReceiver.ts';
import type { Retentions } from './summarizeSoak.ts';

export interface SoakOptions extends ReceiverFaults {
  minutes: number;
  sampleSeconds: number;
  streams: number;
  logsPerBlock: number;
  blockMs: number;
  /** Receiver origins the streams are spread over. */
  origins: number;
  /** Data-interface requests per second. */
  apiPerSecond: number;
  warmupMinutes: number;
  /**
   * A heap snapshot of every service at the end of warm-up and at the end of the run, and their
   * difference by kind (heapSnapshotGrowth): what a live heap's growth is made of. Each snapshot
   * stops its service for a second or two (its files are tens of MB, in the run's dir).
   */
  heapSnapshots: boolean;
}

export interface SoakRun {
  samples: SoakSample[];
  mix: SoakStreamMix;
  retentions: Omit<Retentions, 'delivery'>;
  /** Interrupted before its minutes were up. */
  stoppedEarly: boolean;
  /** With heapSnapshots: per service, its heap's change between the two snapshots, and over how long. */
  heapGrowth?: Partial<Record<AppName, HeapSnapshotGrowth & { hours: number }>>;
}

/** The recipients of every block's transfers: firstRecipient + i. */
const FIRST_RECIPIENT = 0x100000n;

/**
 * The soak run: the whole stack on servers of its own (the chaos command's), ~`streams` streams
 * through the gateway, a block of `logsPerBlock` Transfer logs every `blockMs`, receivers that are
 * slow or fail some of the time, a trickle of data-interface requests, and a sample of every
 * quantity every `sampleSeconds` for `minutes`. `signal` ends it early (the samples so far are
 * returned). The servers' data is deleted at the end unless `keepData`; the logs are kept.
 */
export async function runSoak(
  o: SoakOptions & { dir: string; keepData: boolean; signal: AbortSignal; log: (line: string) => void },
): Promise<SoakRun> {
  let driver: BlockDriver | undefined;
  const receiver = await startSoakReceiver({ ...o, minedAt: (b) => driver?.minedAt(b) });
  // The chaos run's services, with the default pool size (it keeps 4 connections per process).
  const heapDir = (app: AppName) => join(o.dir, 'heap', app);
  const env = Object.fromEntries(
    APP_NAMES.map((app) => [
      app,
      {
        DATABASE_POOL_SIZE: '10',
        ...(o.heapSnapshots ? { NODE_OPTIONS: heapSnapshotNodeOptions(heapDir(app)) } : {}),
      },
    ]),
  );
  const stack = await startChaosStack({ log: o.log, dir: o.dir, env });
  let api: ReturnType<typeof startApiLoad> | undefined;
  const samples: SoakSample[] = [];
  try {
    const from = devnetAccount(0);
    const emitter = await stack.driver.deploy(from, bulkTransferEmitterAbi, bulkTransferEmitterBytecode, []);
    const recipients = Array.from(
      { length: o.logsPerBlock },
      (_, i) => `0x${(FIRST_RECIPIENT + BigInt(i)).toString(16).padStart(40, '0')}`,
    );
    const mix = soakStreamMix(o.streams);
    const created = await createSoakStreams({
      gatewayUrl: stack.gatewayUrl,
      apiKey: stack.apiKey.key,
      urls: receiver.urls,
      mix,
      emitter,
      driverAccount: from.address.toLowerCase(),
      recipients,
    });
    o.log(`${created} streams: ${JSON.stringify(mix)} over ${receiver.urls.length} receiver origins`);
    driver = driveSoakBlocks({
      driver: stack.driver,
      from,
      emitter,
      firstRecipient: recipients[0]!,
      logsPerBlock: o.logsPerBlock,
      blockMs: o.blockMs,
      log: o.log,
    });
    api = startApiLoad({
      gatewayUrl: stack.gatewayUrl,
      apiKey: stack.apiKey.key,
      perSecond: o.apiPerSecond,
      paths: [
        `/api/v2.2/${recipients[7]}/erc20/transfers?chain=0x7a69&limit=25`,
        `/api/v2.2/${emitter}/logs?chain=0x7a69&topic0=${TRANSFER_TOPIC0}&limit=25`,
        `/api/v2.2/erc20/${emitter}/owners?chain=0x7a69&limit=25`,
      ],
    });
    const kafkaLogDir = join(o.dir, 'servers/kafka/kraft');
    const sampler = createSoakSampler({ stack, receiver, driver, api, kafkaLogDir });
    const started = Date.now();
    samples.push(await sampler.take(0));
    const count = Math.floor((o.minutes * 60) / o.sampleSeconds);
    const snapshots = (label: string) =>
      takeHeapSnapshots({ apps: stack.apps, opsUrls: stack.opsUrls, dirOf: heapDir, log: o.log }).then(
        (files) => {
          o.log(`heap snapshots ${label}: ${Object.keys(files).length} of ${stack.apps.size} services`);
          return { at: Date.now(), files };
        },
      );
    let warm: Awaited<ReturnType<typeof snapshots>> | undefined;
    for (let k = 1; k <= count && !o.signal.aborted; k++) {
      await sleepUntil(started + k * o.sampleSeconds * 1000, o.signal);
      if (o.signal.aborted) break;
      const s = await sampler.take((k * o.sampleSeconds) / 60);
      samples.push(s);
      o.log(progressLine(s));
      // At the last sample of warm-up: what a snapshot leaves behind (V8's map of object ids, in
      // native memory) then lands before the samples the growth is judged on.
      if (o.heapSnapshots && !warm && s.minute + o.sampleSeconds / 60 >= o.warmupMinutes)
        warm = await snapshots('at the end of warm-up');
    }
    const heapGrowth = warm ? compareSnapshots(warm, await snapshots('at the end')) : undefined;
    const topics = Object.keys(samples[samples.length - 1]?.kafka.topics ?? {}).filter(
      (t) => t !== '__cluster_metadata',
    );
    return {
      samples,
      mix,
      retentions: {
        kafka: await readKafkaRetention(stack.servers.kafkaBrokers, topics).catch(() => ({})),
        walBoundBytes: await readWalBound(stack.pool).catch(() => null),
      },
      stoppedEarly: o.signal.aborted,
      ...(heapGrowth ? { heapGrowth } : {}),
    };
  } finally {
    api?.stop();
    await driver?.stop();
    await stack.close();
    await receiver.close();
    if (!o.keepData) {
      rmSync(join(o.dir, 'servers'), { recursive: true, force: true });
      rmSync(join(o.dir, 'heap'), { recursive: true, force: true });
    }
  }
}

/** Per service with both snapshots: what its heap gained between them, by kind. */
function compareSnapshots(
  from: { at: number; files: Partial<Record<AppName, string>> },
  to: { at: number; files: Partial<Record<AppName, string>> },
): NonNullable<SoakRun['heapGrowth']> {
  const hours = (to.at - from.at) / 3_600_000;
  const growth: NonNullable<SoakRun['heapGrowth']> = {};
  for (const app of APP_NAMES) {
    const a = from.files[app];
    const b = to.files[app];
    if (a && b)
      growth[app] = { ...heapSnapshotGrowth(readHeapSnapshotSummary(a), readHeapSnapshotSummary(b)), hours };
  }
  return growth;
}

function progressLine(s: SoakSample): string {
  const mib = (b: number | undefined) => `${((b ?? Number.NaN) / 2 ** 20).toFixed(0)}`;
  const rss = Object.entries(s.services)
    .map(([app, p]) => `${app.split('-')[0]} ${mib(p.rssBytes)}`)
    .join(' ');
  return `minute ${s.minute.toFixed(1)}: ${s.pipeline.blocks} blocks, delivered ${s.delivery.deliveredPerSecond.toFixed(0)}/s, latency p50 ${s.latency.p50Ms} p99 ${s.latency.p99Ms} ms, pending ${s.delivery.pending}, RSS MiB ${rss}, db ${mib(s.postgres?.databaseBytes)} MiB, kafka ${mib(s.kafka.logDirBytes)} MiB${shared(s)}`;
}

/** The machine's CPU and PostgreSQL's maintenance over the interval, when they were read. */
function shared(s: SoakSample): string {
  const a = s.postgresActivity;
  const cpu = s.host ? `, host CPU ${s.host.busyCores.toFixed(2)} cores` : '';
  if (!a) return cpu;
  const vacuumed = vacuumedTables(a).length;
  return `${cpu}, checkpoint writes ${(a.checkpointWriteBytesPerSecond / 2 ** 20).toFixed(1)} MiB/s, ${vacuumed} tables vacuumed`;
}

function sleepUntil(at: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, at - Date.now()));
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
