import { join } from 'node:path';
import type { Pool } from '@tributary/db';
import {
  type OwedWebhooks,
  type WebhookCounts,
  addCounts,
  countStreamWebhooks,
  emptyCounts,
} from '../kinds/countStreamWebhooks.ts';
import type { RunStream } from '../kinds/createKindStream.ts';
import { owedWebhooks } from '../kinds/owedWebhooks.ts';
import { readChainBlocks } from '../kinds/readChainBlocks.ts';
import type { DeployedKind } from '../kinds/streamKind.ts';
import { type TableCount, compareTablesWithChain } from './compareTablesWithChain.ts';
import type { OrphanedBlock } from './driveBlocks.ts';
import { type CatchUp, type FollowerOutage, findCatchUp } from './followerOutage.ts';
import { waitBackfillDone } from './requestRangeBackfill.ts';
import type { KindRow, LateStreamRow } from './runChaos.ts';
import { CHAOS_CHAIN_ID, type ChaosStack } from './startChaosStack.ts';
import type { ReceivedWebhook } from './webhookLedger.ts';

export interface RunCount {
  events: number;
  kinds: KindRow[];
  lateStreams: LateStreamRow[];
  strayWebhooks: number;
  rows: Record<string, TableCount>;
  outages: (FollowerOutage & { catchUp: CatchUp | null })[];
  requestedBackfill: { fromBlock: number; toBlock: number; doneAfterMs: number | null };
  backAtHeadMs: number | null;
  allDeliveredMs: number | null;
  ok: boolean;
}

/**
 * After the last fault: waits for the follower and the projector to reach the head, for the
 * requested backfill to finish and for every owed webhook to arrive (or the settle time to
 * pass), then counts, per kind and stream, what the receiver got against what the chain owes,
 * and the tables against the chain.
 */
export async function settleAndCount(opts: {
  stack: ChaosStack;
  kinds: readonly DeployedKind[];
  streams: readonly RunStream[];
  lateStreams: readonly RunStream[];
  orphaned: ReadonlyMap<string, OrphanedBlock>;
  received: readonly ReceivedWebhook[];
  lastFaultAt: number;
  outages: readonly FollowerOutage[];
  backfill: { id: string; at: number; fromBlock: number; toBlock: number };
  settleTimeoutMs: number;
  log: (line: string) => void;
}): Promise<RunCount> {
  const { pool, driver } = opts.stack;
  const finalHead = await driver.head();
  opts.log(`driving done: head ${finalHead}; waiting for the pipeline`);
  const backAtHeadMs = await waitBackAtHead(pool, finalHead, opts.lastFaultAt, opts.settleTimeoutMs);
  const backfillDone = await waitBackfillDone(pool, opts.backfill.id, opts.settleTimeoutMs);

  const blocks = await readChainBlocks(driver.client, 0, finalHead);
  const chain = {
    canonical: new Map(blocks.map((b) => [b.hash as string, b.number])),
    orphaned: new Map([...opts.orphaned].map(([hash, o]) => [hash, o.number])),
  };
  // Orphaned blocks the follower had published owe their unconfirmed webhook to the streams with items in them.
  const owedOrphans = (s: RunStream) =>
    new Set(
      [...opts.orphaned]
        .filter(([, o]) => o.seenByFollower && (o.owed.get(s.stream.label)?.length ?? 0) > 0)
        .map(([hash]) => hash),
    );
  const all = [...opts.streams, ...opts.lateStreams];
  const kindOf = new Map(opts.kinds.map((k) => [k.name, k]));
  const owed = new Map<string, OwedWebhooks>();
  for (const s of all)
    owed.set(s.id, {
      canonical: await owedWebhooks(kindOf.get(s.kind)!, s.stream, blocks, s.startBlock, driver.client),
      orphaned: owedOrphans(s),
    });
  const count = (s: RunStream, checkItems: boolean) =>
    countStreamWebhooks(s, owed.get(s.id)!, chain, opts.received, { checkItems });

  let allDeliveredMs: number | null = null;
  const deadline = Date.now() + opts.settleTimeoutMs;
  for (;;) {
    const lost = all.reduce((n, s) => n + count(s, false).lost, 0);
    if (lost === 0) {
      allDeliveredMs = Date.now() - opts.lastFaultAt;
      break;
    }
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  await new Promise((r) => setTimeout(r, 2_000)); // anything sent twice has time to arrive

  const kinds: KindRow[] = opts.kinds.map((k) => {
    const mine = opts.streams.filter((s) => s.kind === k.name);
    return {
      kind: k.name,
      title: k.title,
      streams: mine.map((s) => s.id),
      webhooks: mine.reduce<WebhookCounts>((sum, s) => addCounts(sum, count(s, true)), emptyCounts()),
    };
  });
  const lateStreams: LateStreamRow[] = opts.lateStreams.map((s) => ({
    label: s.label,
    kind: s.kind,
    id: s.id,
    fromBlock: s.fromBlock,
    startBlock: s.startBlock,
    webhooks: count(s, true),
  }));
  const ids = new Set(all.map((s) => s.id));
  const strayWebhooks = opts.received.filter((r) => !ids.has(r.streamId)).length;
  const rows = await compareTablesWithChain(pool, CHAOS_CHAIN_ID, {
    blockHashes: blocks.map((b) => b.hash),
    logs: blocks.flatMap((b) => b.logs),
  });
  const loadAddresses = new Set(
    opts.kinds
      .filter((k) => k.load)
      .flatMap((k) => k.streams.flatMap((s) => s.addresses.map((a) => a.toLowerCase()))),
  );
  const events = blocks.reduce((n, b) => n + b.logs.filter((l) => loadAddresses.has(l.address)).length, 0);
  const followerLog = join(opts.stack.dir, 'logs', 'chain-follower.log');
  const outages = opts.outages.map((outage) => ({ ...outage, catchUp: findCatchUp(followerLog, outage) }));

  const webhooksOk = [...kinds.map((k) => k.webhooks), ...lateStreams.map((l) => l.webhooks)].every(
    (w) =>
      w.lost === 0 &&
      w.duplicatesWithNewId === 0 &&
      w.badSignatures === 0 &&
      w.unexpected === 0 &&
      w.items.missing === 0 &&
      w.items.extra === 0,
  );
  const rowsOk = Object.values(rows).every((t) => t.missing === 0 && t.duplicated === 0 && t.extra === 0);
  return {
    events,
    kinds,
    lateStreams,
    strayWebhooks,
    rows,
    outages,
    requestedBackfill: {
      fromBlock: opts.backfill.fromBlock,
      toBlock: opts.backfill.toBlock,
      doneAfterMs: backfillDone ? backfillDone.getTime() - opts.backfill.at : null,
    },
    backAtHeadMs,
    allDeliveredMs,
    ok: webhooksOk && strayWebhooks === 0 && rowsOk,
  };
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
        `SELECT (SELECT block_number FROM follower_checkpoints WHERE chain_id = $1) AS cp,
                (SELECT max(number) FROM blocks WHERE chain_id = $1) AS projected`,
        [CHAOS_CHAIN_ID],
      )
      .then((r) => r.rows[0])
      .catch(() => undefined);
    if (at && Number(at.cp ?? -1) >= head && Number(at.projected ?? -1) >= head) return Date.now() - since;
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}
