import type { WebhookCounts } from '../kinds/countStreamWebhooks.ts';
import { type RunStream, createKindStream } from '../kinds/createKindStream.ts';
import type { KindName, KindStream } from '../kinds/streamKind.ts';
import { deployKinds, streamKinds } from '../kinds/streamKinds.ts';
import type { TableCount } from './compareTablesWithChain.ts';
import { settleAndCount } from './settleAndCount.ts';
import { type DriveResult, driveBlocks } from './driveBlocks.ts';
import { type CatchUp, type FollowerOutage, stopFollower } from './followerOutage.ts';
import { type KillTarget, planKills } from './planKills.ts';
import { SERVER_NAMES, type ServerName } from './privateServers.ts';
import { requestRangeBackfill } from './requestRangeBackfill.ts';
import { type SlowProvider, slowDownProvider } from './slowProvider.ts';
import { CHAOS_CHAIN_ID, CHAOS_CONFIRMATIONS, startChaosStack } from './startChaosStack.ts';
import { APP_NAMES, type AppName } from '@tributary/testkit/bench';
import { startWebhookLedger } from './webhookLedger.ts';

export interface ChaosOptions {
  /** Contract-log events (ERC20 Transfer logs of the bulk emitters) to drive: `logsPerTx` in every block. */
  events: number;
  logsPerTx: number;
  /** SIGKILLs in all; every app and every server is killed at least once when kills >= 8. */
  kills: number;
  /** How long the blocks are spread over, in seconds (the faults fall inside it). */
  seconds: number;
  /** The receiver answers after a random 0..this many ms. */
  receiverLatencyMs: number;
  /** How long to wait for everything to arrive after the last fault. */
  settleTimeoutMs: number;
  /** What may be killed (default: every app and every server). */
  targets?: readonly KillTarget[];
  /** Follower outages while blocks are mined, killed and kept down and frozen (SIGSTOP) in turn. */
  outages: number;
  outageSeconds: number;
  /** Reorgs of 1-3 blocks (below the confirmation depth) during the run. */
  reorgs: number;
  /** How long the provider is slow (300-800 ms per request); 0: never. */
  slowProviderSeconds: number;
  /** Share of the blocks each kind acts in (the contract-log load acts in every one). */
  share: number;
  log: (line: string) => void;
}

export interface KindRow {
  kind: KindName;
  title: string;
  streams: string[];
  webhooks: WebhookCounts;
}

export interface LateStreamRow {
  label: string;
  kind: KindName;
  id: string;
  fromBlock: number;
  startBlock: number;
  webhooks: WebhookCounts;
}

export interface ChaosReport {
  /** Contract-log events on the canonical chain, and the blocks of the run. */
  events: number;
  blocks: number;
  kills: Record<string, number>;
  /** Exits the supervisors saw that were not the run's (crashes, watchdog exits). */
  unplannedExits: Record<string, number>;
  /** Per kind of stream, its streams created before the first block of the run. */
  kinds: KindRow[];
  /** Streams created during the run (one while Kafka was down, one half-way). */
  lateStreams: LateStreamRow[];
  /** Webhooks of no stream of the run (a create retried after its answer was lost): should be 0. */
  strayWebhooks: number;
  rows: Record<string, TableCount>;
  faults: {
    outages: (FollowerOutage & { catchUp: CatchUp | null })[];
    slowProvider: SlowProvider | null;
    requestedBackfill: { fromBlock: number; toBlock: number; doneAfterMs: number | null } | null;
    reorgs: DriveResult['reorgs'];
    activityErrors: string[];
  };
  /** From the last fault to the follower and projector at the chain's head. */
  backAtHeadMs: number | null;
  /** From the last fault until every expected webhook had arrived (null: not all did). */
  allDeliveredMs: number | null;
  ok: boolean;
}

/**
 * The chaos run: the whole stack, every kind of stream, blocks with every kind's activity over
 * `seconds`, and meanwhile SIGKILLs of the apps and servers at random moments (a killed server is
 * started again after 1-3 s; a killed app by its supervisor), follower outages of
 * `outageSeconds` while blocks are mined, a slow provider, a requested backfill and shallow
 * reorgs; then a wait for everything to arrive, and the count of what the receiver and the
 * tables hold against what the chain says, per kind.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const durationMs = o.seconds * 1_000;
  const rounds = Math.ceil(o.events / o.logsPerTx);
  // Outages from 15% to 75% of the run; the slow provider at 40%, between the first two.
  const outageStarts = Array.from(
    { length: o.outages },
    (_, k) => durationMs * (0.15 + (0.6 * k) / Math.max(1, o.outages - 1)),
  );
  for (const at of outageStarts)
    if (at + o.outageSeconds * 1_000 > durationMs * 0.92)
      throw new Error(
        `a ${o.outageSeconds} s outage does not fit in a ${o.seconds} s run: give more seconds`,
      );

  const ledger = await startWebhookLedger({ maxLatencyMs: o.receiverLatencyMs });
  const stack = await startChaosStack({ log: o.log });
  try {
    const { driver, pool } = stack;
    ledger.setSecret(stack.apiKey.webhookSecret);
    const kinds = await deployKinds(driver, streamKinds({ logsPerTx: o.logsPerTx }));
    o.log(`kinds deployed at block ${await driver.head()}`);
    const access = { gatewayUrl: stack.gatewayUrl, apiKey: stack.apiKey.key, webhookUrl: ledger.url };
    const create = (kind: KindName, stream: KindStream, label: string, retry: boolean) =>
      createKindStream({
        access,
        kind,
        stream,
        label,
        chainId: CHAOS_CHAIN_ID,
        pool,
        head: driver.head,
        retry,
      });
    const streams: RunStream[] = [];
    for (const k of kinds) for (const s of k.streams) streams.push(await create(k.name, s, s.label, false));
    o.log(`${streams.length} streams, due from block ${Math.max(...streams.map((s) => s.fromBlock))}`);
    const late: Promise<RunStream>[] = [];
    const createLate = (kind: KindName, label: string) => {
      o.log(`creating stream ${label}`);
      late.push(
        create(kind, kinds.find((k) => k.name === kind)!.streams[0]!, label, true).then((s) => {
          o.log(
            `stream ${label} ${s.id}: due every block after ${s.fromBlock} (start block ${s.startBlock})`,
          );
          return s;
        }),
      );
    };

    const started = Date.now();
    let lastFaultAt = started;
    const at = (ms: number) => sleep(Math.max(0, started + ms - Date.now()));
    const firstBlock = (await driver.head()) + 1;
    const reorgRounds = pickRounds(o.reorgs, rounds);
    let followerAway = false;
    const drive = driveBlocks({
      driver,
      kinds,
      rounds,
      durationMs,
      share: o.share,
      reorgsAt: new Map(reorgRounds.map((r) => [r, 1 + Math.floor(Math.random() * 3)])),
      followerAway: () => followerAway,
      followerAt: async (n) => {
        const { rows } = await pool.query<{ n: string }>(
          'SELECT block_number AS n FROM follower_checkpoints WHERE chain_id = $1',
          [CHAOS_CHAIN_ID],
        );
        return rows[0] !== undefined && Number(rows[0].n) >= n;
      },
      onRound: (i) => {
        if (i === Math.floor(rounds / 2))
          createLate('internalTransactions', 'internalTransactions-late-mid-run');
      },
      log: o.log,
    });

    const follower = stack.apps.get('chain-follower')!;
    let followerOut: Promise<unknown> = Promise.resolve();
    const outages = (async () => {
      const done: FollowerOutage[] = [];
      for (const [k, start] of outageStarts.entries()) {
        await at(start);
        followerAway = true;
        const outage = stopFollower({
          follower,
          how: k % 2 === 0 ? 'down' : 'frozen',
          ms: o.outageSeconds * 1_000,
          head: driver.head,
          log: o.log,
        });
        followerOut = outage;
        done.push(await outage);
        followerAway = false;
        lastFaultAt = Date.now();
      }
      return done;
    })();
    const slow = (async () => {
      if (o.slowProviderSeconds <= 0) return null;
      await at(durationMs * 0.4);
      o.log(`provider slow for ${o.slowProviderSeconds} s`);
      const s = await slowDownProvider({ rpc: stack.rpc, ms: o.slowProviderSeconds * 1_000, log: o.log });
      lastFaultAt = Date.now();
      return s;
    })();
    const backfill = (async () => {
      await at(durationMs * 0.7);
      const toBlock = (await driver.head()) - CHAOS_CONFIRMATIONS - 1;
      const range = { chainId: CHAOS_CHAIN_ID, fromBlock: firstBlock, toBlock };
      const request = await requestRangeBackfill(pool, range);
      o.log(`backfill of blocks ${firstBlock}..${toBlock} requested (${request.id})`);
      return { ...range, ...request };
    })();

    const killCount: Record<string, number> = {};
    const killer = (async () => {
      for (const { at: when, target } of planKills(o.kills, durationMs, o.targets)) {
        await at(when);
        killCount[target] = (killCount[target] ?? 0) + 1;
        if ((SERVER_NAMES as readonly string[]).includes(target)) {
          const server = target as ServerName;
          await stack.servers.kill(server);
          o.log(`SIGKILL ${server}`);
          // A user creating a stream while the broker is away: no change event can be sent.
          if (server === 'kafka' && killCount['kafka'] === 1)
            createLate('nativeTransfers', 'nativeTransfers-late-kafka-down');
          await sleep(1_000 + Math.random() * 2_000);
          await stack.servers.restart(server);
          o.log(`${server} restarted`);
        } else {
          // The follower's kills wait for an outage of it to end: a kill would end the outage early.
          if (target === 'chain-follower') await followerOut;
          stack.apps.get(target as AppName)!.kill();
          o.log(`SIGKILL ${target}`);
          await sleep(600); // its supervisor starts it again after 0.5 s
        }
        lastFaultAt = Date.now();
      }
    })();

    const [driven, outagesDone, slowProvider, requested] = await Promise.all([
      drive,
      outages,
      slow,
      backfill,
      killer,
    ]);
    const lateStreams = await Promise.all(late);
    // A late stream whose call answered near the run's end (its PUT waits out a PostgreSQL kill)
    // may have seen no block with its kind's activity, each kind acting in a random share of them:
    // one block more in which each late stream's kind acts makes every late stream due.
    const lateKinds = kinds.filter((k) => lateStreams.some((s) => s.kind === k.name));
    await driver.mineBlock(async (send) => {
      await Promise.all(lateKinds.map((k) => k.act(send, driven.nextRound)));
    });
    // Every block confirmed: the confirmed webhooks of the last blocks are due too.
    await driver.mineEmpty(CHAOS_CONFIRMATIONS + 2);
    const unplannedExits: Record<string, number> = {};
    for (const app of APP_NAMES) unplannedExits[app] = stack.apps.get(app)!.crashes.length;
    const counted = await settleAndCount({
      stack,
      kinds,
      streams,
      lateStreams,
      orphaned: driven.orphaned,
      received: ledger.received,
      lastFaultAt,
      outages: outagesDone,
      backfill: requested,
      settleTimeoutMs: o.settleTimeoutMs,
      log: o.log,
    });
    return {
      ...counted,
      blocks: driven.blocks,
      kills: killCount,
      unplannedExits,
      faults: {
        outages: counted.outages,
        slowProvider,
        requestedBackfill: counted.requestedBackfill,
        reorgs: driven.reorgs,
        activityErrors: driven.errors,
      },
    };
  } finally {
    await stack.close();
    await ledger.close();
  }
}

/** `n` distinct rounds at random within 10%..80% of the run (a reorg may wait for the follower). */
function pickRounds(n: number, rounds: number): number[] {
  const lo = Math.floor(rounds * 0.1);
  const span = Math.max(1, Math.floor(rounds * 0.7));
  const picked = new Set<number>();
  while (picked.size < Math.min(n, span)) picked.add(lo + Math.floor(Math.random() * span));
  return [...picked];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
