import type { Pool } from '@tributary/db';
import { bulkTransferEmitterAbi } from '@tributary/contracts';
import type { DevnetClient } from '@tributary/devnet';
import type { Hash, PublicClient } from 'viem';
import { type WebhookCounts, countWebhooks } from './countWebhooks.ts';
import { type TableCount, compareTablesWithChain } from './compareTablesWithChain.ts';
import type { ChaosStream } from './countWebhooks.ts';
import { createChaosStreams, createLateStream } from './createChaosStreams.ts';
import { SERVER_NAMES, type ServerName } from './privateServers.ts';
import { readChainLogs } from './readChainLogs.ts';
import { CHAOS_CONFIRMATIONS, startChaosStack } from './startChaosStack.ts';
import { APP_NAMES, type AppName } from './superviseApp.ts';
import { startWebhookLedger } from './webhookLedger.ts';

export interface ChaosOptions {
  /** On-chain events (ERC20 Transfer logs) to drive. */
  events: number;
  /** Logs per transaction (one transaction per block). */
  logsPerTx: number;
  /** SIGKILLs in all; every app and every server is killed at least once when kills >= 8. */
  kills: number;
  /** How long the events are spread over, in seconds (the kills fall inside it). */
  seconds: number;
  /** The receiver answers after a random 0..this many ms. */
  receiverLatencyMs: number;
  /** How long to wait for everything to arrive after the last kill. */
  settleTimeoutMs: number;
  /** What may be killed (default: every app and every server). */
  targets?: readonly Target[];
  log: (line: string) => void;
}

export interface ChaosReport {
  events: number;
  blocks: number;
  kills: Record<string, number>;
  /** Exits the supervisors saw that were not our kills (crashes, watchdog exits). */
  unplannedExits: Record<string, number>;
  /** The three streams created before the events. */
  webhooks: WebhookCounts;
  /** Streams created during the run: one while Kafka was down (when it was killed), one mid-run. */
  lateStreams: (ChaosStream & { tag: string })[];
  lateWebhooks: WebhookCounts;
  /** Webhooks of no stream of the run (a create retried after its answer was lost): should be 0. */
  strayWebhooks: number;
  rows: Record<string, TableCount>;
  /** From the last restart to the follower and projector at the chain's head. */
  backAtHeadMs: number | null;
  /** From the last restart until every expected webhook had arrived (null: not all did). */
  allDeliveredMs: number | null;
  ok: boolean;
}

type Target = AppName | ServerName;

/**
 * The chaos run: the whole stack, `events` Transfer logs driven in blocks of `logsPerTx` over
 * `seconds`, `kills` SIGKILLs of the apps and servers at random moments meanwhile (a killed
 * server is started again after 1-3 s; a killed app is restarted by its supervisor), then a wait
 * for everything to arrive, and the count of what the receiver and the tables hold against what
 * the chain says.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const ledger = await startWebhookLedger({ maxLatencyMs: o.receiverLatencyMs });
  const stack = await startChaosStack({ log: o.log });
  try {
    const chain = stack.client as unknown as PublicClient;
    const head = async () => Number(await chain.getBlockNumber({ cacheTime: 0 }));
    ledger.setSecret(stack.apiKey.webhookSecret);
    const access = { gatewayUrl: stack.gatewayUrl, apiKey: stack.apiKey.key, webhookUrl: ledger.url };
    const streams = await createChaosStreams({ ...access, emitters: stack.emitters, head, pool: stack.pool });
    const late: Promise<ChaosStream & { tag: string }>[] = [];
    const createLate = (tag: string, address: string) => {
      o.log(`creating stream ${tag}`);
      late.push(
        createLateStream({ ...access, address, tag, head, pool: stack.pool }).then((s) => {
          o.log(`stream ${tag} ${s.id}: due every block after ${s.fromBlock} (start block ${s.startBlock})`);
          return { ...s, tag };
        }),
      );
    };
    o.log(`streams ${streams.map((s) => s.id).join(', ')} from block ${streams[0]?.fromBlock}`);

    const txs = Math.ceil(o.events / o.logsPerTx);
    const kills = planKills(o.kills, o.seconds * 1_000, o.targets);
    const killCount: Record<string, number> = {};
    let lastRestartAt = Date.now();
    const started = Date.now();

    const drive = (async () => {
      let events = 0;
      for (let i = 0; i < txs; i++) {
        const due = started + (i * o.seconds * 1_000) / txs;
        if (due > Date.now()) await sleep(due - Date.now());
        const count = Math.min(o.logsPerTx, o.events - events);
        const hash = await stack.client.writeContract({
          address: stack.emitters[i % 2] as `0x${string}`,
          abi: bulkTransferEmitterAbi,
          functionName: 'emitTransfers',
          args: [`0x${(0x100000 + i * 0x1000).toString(16).padStart(40, '0')}`, BigInt(count), BigInt(i + 1)],
        });
        await waitIncluded(stack.client, hash, o.log);
        events += count;
        if (i === Math.floor(txs / 2)) createLate('chaos-late-mid-run', stack.emitters[1]);
        if (i % 50 === 49) o.log(`driven ${events} events in ${i + 1} blocks`);
      }
      return events;
    })();

    const killer = (async () => {
      for (const { at, target } of kills) {
        if (started + at > Date.now()) await sleep(started + at - Date.now());
        killCount[target] = (killCount[target] ?? 0) + 1;
        if ((SERVER_NAMES as readonly string[]).includes(target)) {
          const server = target as ServerName;
          await stack.servers.kill(server);
          o.log(`SIGKILL ${server}`);
          // A user creating a stream while the broker is away: no change event can be sent.
          if (server === 'kafka' && killCount['kafka'] === 1)
            createLate('chaos-late-kafka-down', stack.emitters[0]);
          await sleep(1_000 + Math.random() * 2_000);
          await stack.servers.restart(server);
          o.log(`${server} restarted`);
        } else {
          stack.apps.get(target as AppName)!.kill();
          o.log(`SIGKILL ${target}`);
          await sleep(600); // its supervisor starts it again after 0.5 s
        }
        lastRestartAt = Date.now();
      }
    })();

    const [events] = await Promise.all([drive, killer]);
    const lateStreams = await Promise.all(late);
    const runIds = new Set([...streams, ...lateStreams].map((s) => s.id));
    // Every block confirmed: the confirmed webhooks of the last blocks are due too.
    await stack.client.request({
      method: 'anvil_mine' as never,
      params: [`0x${(CHAOS_CONFIRMATIONS + 2).toString(16)}`] as never,
    });
    const finalHead = await head();
    o.log(`driving done: ${events} events, head ${finalHead}; waiting for the pipeline`);

    const backAtHeadMs = await waitBackAtHead(stack.pool, finalHead, lastRestartAt, o.settleTimeoutMs);
    const chainData = await readChainLogs(chain, finalHead);
    let allDeliveredMs: number | null = null;
    const deadline = Date.now() + o.settleTimeoutMs;
    for (;;) {
      const lost =
        countWebhooks(streams, chainData.logs, ledger.received).lost +
        countWebhooks(lateStreams, chainData.logs, ledger.received).lost;
      if (lost === 0) {
        allDeliveredMs = Date.now() - lastRestartAt;
        break;
      }
      if (Date.now() > deadline) break;
      await sleep(1_000);
    }
    await sleep(2_000); // anything sent twice has time to arrive
    const webhooks = countWebhooks(streams, chainData.logs, ledger.received);
    const lateWebhooks = countWebhooks(lateStreams, chainData.logs, ledger.received);
    const strayWebhooks = ledger.received.filter((r) => !runIds.has(r.streamId)).length;
    const webhooksOk = [webhooks, lateWebhooks].every(
      (w) => w.lost === 0 && w.duplicatesWithNewId === 0 && w.badSignatures === 0 && w.unexpected === 0,
    );
    const rows = await compareTablesWithChain(stack.pool, 31337, chainData);
    const unplannedExits: Record<string, number> = {};
    for (const app of APP_NAMES) unplannedExits[app] = stack.apps.get(app)!.crashes.length;
    const rowsOk = Object.values(rows).every((t) => t.missing === 0 && t.duplicated === 0 && t.extra === 0);
    return {
      events,
      blocks: txs,
      kills: killCount,
      unplannedExits,
      webhooks,
      lateStreams,
      lateWebhooks,
      strayWebhooks,
      rows,
      backAtHeadMs,
      allDeliveredMs,
      ok: webhooksOk && strayWebhooks === 0 && rowsOk,
    };
  } finally {
    await stack.close();
    await ledger.close();
  }
}

/** Kill moments spread at random over 5%..90% of the run; the first targets are every one once. */
function planKills(
  n: number,
  durationMs: number,
  among: readonly Target[] = [...APP_NAMES, ...SERVER_NAMES],
): { at: number; target: Target }[] {
  const all = [...among];
  const targets = shuffle(all).slice(0, Math.min(n, all.length));
  while (targets.length < n) targets.push(all[Math.floor(Math.random() * all.length)]!);
  const times = Array.from({ length: n }, () => durationMs * (0.05 + Math.random() * 0.85)).sort(
    (a, b) => a - b,
  );
  return times.map((at, i) => ({ at, target: targets[i]! }));
}

async function waitBackAtHead(
  pool: Pool,
  head: number,
  since: number,
  timeoutMs: number,
): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const at = await pool
      .query<{ cp: string | null; projected: string | null }>(
        `SELECT (SELECT block_number FROM follower_checkpoints WHERE chain_id = 31337) AS cp,
                (SELECT max(number) FROM blocks WHERE chain_id = 31337) AS projected`,
      )
      .then((r) => r.rows[0])
      .catch(() => undefined);
    if (at && Number(at.cp ?? -1) >= head && Number(at.projected ?? -1) >= head) return Date.now() - since;
    await sleep(500);
  }
  return null;
}

/**
 * Waits for a transaction's receipt. On this shared machine under the chaos load, anvil's
 * automine once left a transaction pending for minutes: after 30 s a block is mined by hand.
 */
async function waitIncluded(client: DevnetClient, hash: Hash, log: (line: string) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 30_000 });
      return;
    } catch (err) {
      if (attempt >= 5) throw err;
      log(`transaction ${hash} not included after 30 s: mining a block`);
      await client.request({ method: 'anvil_mine' as never, params: ['0x1'] as never });
    }
  }
}

function shuffle<T>(list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
