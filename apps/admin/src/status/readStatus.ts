import { type StoredDeadLetter, readDeadLetters, topicsFor } from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { type BackfillRequest, listOpenBackfills } from '@tributary/db/chain';
import { deadLettersAcknowledgedAt } from '@tributary/db/ops';
import {
  countDeliveriesByStatus,
  countStreamsByStatus,
  listRunningStreamBackfills,
  type StreamBackfill,
} from '@tributary/db/streams';
import type { Queue } from 'bullmq';
import type { Admin, Kafka } from 'kafkajs';

/** One chain as its follower and projector see it, beside the node's head. */
interface ChainStatus {
  chainId: number;
  /** The node's latest block (undefined: no RPC URL for the chain, or the node did not answer). */
  head?: number;
  headError?: string;
  /** The follower's checkpoint: the last block it published. */
  checkpoint: number;
  checkpointUpdatedAt: Date;
  /** The newest block in the query tables. */
  projected?: number;
}

/** A consumer group on the block topic: its committed offsets against the topic's end. */
interface ConsumerStatus {
  group: string;
  topic: string;
  /** Messages not yet committed, over every partition. */
  lag: number;
  /** The sum of committed offsets: it moves when the group makes progress. */
  committed: number;
}

interface ServiceStatus {
  name: string;
  url: string;
  /** undefined: the service did not answer at all. */
  ready?: boolean;
  /** What is not ready (the failing checks) or why it did not answer. */
  detail?: string;
}

export interface StatusSnapshot {
  at: number;
  chains: ChainStatus[];
  consumers: ConsumerStatus[];
  /** BullMQ job counts of the webhook queue by state. */
  queue?: Record<string, number>;
  /** Deliveries waiting to be sent, held (stream in error) and failed for good. */
  deliveries?: { pending: number; held: number; failed: number; oldestPendingAt: Date | null };
  streams?: Record<string, number>;
  /** Operators' backfill requests not done yet (`pnpm admin backfill`). */
  backfills?: BackfillRequest[];
  /** Per-stream backfills running (POST /streams/evm/{id}/backfill). */
  streamBackfills?: StreamBackfill[];
  /** Messages set aside on the dead-letter topic since an operator last acknowledged them. */
  deadLetters?: { open: StoredDeadLetter[]; acknowledgedAt: Date | null };
  services: ServiceStatus[];
  /** The sources that could not be read, with the reason. */
  unreadable: { source: string; error: string }[];
}

export interface StatusSources {
  pool: Pool;
  kafka: Kafka;
  admin: Admin;
  queue: Queue;
  topicPrefix: string;
  groups: string[];
  /** Chain id -> the node to ask for the head. */
  rpcUrls: Map<number, string>;
  services: { name: string; url: string }[];
}

/** How long one source may take to answer before it is named unreadable (the dead-letter topic: three times this). */
const TIMEOUT_MS = 3_000;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One look at every part of a deployment; a part that cannot be read is named, never fatal.
 * `deadLetters`: also read the dead-letter topic (a consumer group join: once per status run).
 */
export async function readStatus(
  src: StatusSources,
  opts: { deadLetters?: boolean } = {},
): Promise<StatusSnapshot> {
  const unreadable: StatusSnapshot['unreadable'] = [];
  const attempt = async <T>(source: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withTimeout(read(), TIMEOUT_MS, source);
    } catch (err) {
      unreadable.push({ source, error: message(err) });
      return undefined;
    }
  };
  const [chains, consumers, queue, deliveries, streams, backfills, streamBackfills, services, deadLetters] =
    await Promise.all([
      attempt('postgres (chains)', () => readChains(src.pool, src.rpcUrls, TIMEOUT_MS)),
      attempt('kafka', () => readConsumers(src.admin, topicsFor(src.topicPrefix).blocks, src.groups)),
      attempt('redis', () =>
        src.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'),
      ),
      attempt('postgres (deliveries)', () => countDeliveriesByStatus(src.pool)),
      attempt('postgres (streams)', () => countStreamsByStatus(src.pool)),
      attempt('postgres (backfills)', () => listOpenBackfills(src.pool)),
      attempt('postgres (stream backfills)', () => listRunningStreamBackfills(src.pool)),
      Promise.all(src.services.map((s) => readService(s, TIMEOUT_MS))),
      opts.deadLetters === false
        ? undefined
        : attempt('dead letters', async () => {
            const acknowledgedAt = await deadLettersAcknowledgedAt(src.pool);
            const letters = await readDeadLetters(src.kafka, {
              topicPrefix: src.topicPrefix,
              timeoutMs: TIMEOUT_MS * 3,
            });
            return {
              acknowledgedAt,
              open: letters.filter((l) => acknowledgedAt === null || l.deadAt > acknowledgedAt),
            };
          }),
    ]);
  return {
    at: Date.now(),
    chains: chains ?? [],
    consumers: consumers ?? [],
    ...(queue ? { queue } : {}),
    ...(deliveries ? { deliveries } : {}),
    ...(streams ? { streams } : {}),
    ...(backfills ? { backfills } : {}),
    ...(streamBackfills ? { streamBackfills } : {}),
    ...(deadLetters ? { deadLetters } : {}),
    services,
    unreadable,
  };
}

async function readChains(pool: Pool, rpcUrls: Map<number, string>, timeoutMs: number) {
  const { rows } = await pool.query<{
    chain_id: string;
    block_number: string;
    updated_at: Date;
    projected: string | null;
  }>(
    `SELECT c.chain_id, c.block_number, c.updated_at,
            (SELECT max(number) FROM blocks b WHERE b.chain_id = c.chain_id) AS projected
       FROM follower_checkpoints c ORDER BY c.chain_id`,
  );
  return Promise.all(
    rows.map(async (r): Promise<ChainStatus> => {
      const chainId = Number(r.chain_id);
      const out: ChainStatus = {
        chainId,
        checkpoint: Number(r.block_number),
        checkpointUpdatedAt: r.updated_at,
        ...(r.projected === null ? {} : { projected: Number(r.projected) }),
      };
      const url = rpcUrls.get(chainId);
      if (!url) return { ...out, headError: 'no RPC URL for this chain' };
      try {
        return { ...out, head: await readHead(url, timeoutMs) };
      } catch (err) {
        return { ...out, headError: message(err) };
      }
    }),
  );
}

async function readHead(url: string, timeoutMs: number): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: string; error?: { message?: string } };
  if (typeof body.result !== 'string') throw new Error(body.error?.message ?? `HTTP ${res.status}`);
  return Number(BigInt(body.result));
}

async function readConsumers(admin: Admin, topic: string, groups: string[]): Promise<ConsumerStatus[]> {
  const ends = await admin.fetchTopicOffsets(topic);
  const endOf = new Map(ends.map((p) => [p.partition, Number(p.high)]));
  return Promise.all(
    groups.map(async (group) => {
      const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      let lag = 0;
      let sum = 0;
      for (const p of committed?.partitions ?? []) {
        const end = endOf.get(p.partition) ?? 0;
        // -1: nothing committed yet; the group starts from the beginning of the partition.
        const at = Number(p.offset) < 0 ? 0 : Number(p.offset);
        lag += Math.max(0, end - at);
        sum += at;
      }
      return { group, topic, lag, committed: sum };
    }),
  );
}

async function readService(s: { name: string; url: string }, timeoutMs: number): Promise<ServiceStatus> {
  try {
    const res = await fetch(new URL('/readyz', s.url), { signal: AbortSignal.timeout(timeoutMs) });
    const report = (await res.json().catch(() => ({}))) as {
      checks?: Record<string, { ok: boolean; error?: string }>;
    };
    if (res.status === 200) return { ...s, ready: true };
    const failing = Object.entries(report.checks ?? {})
      .filter(([, c]) => !c.ok)
      .map(([name, c]) => `${name}: ${c.error ?? 'failing'}`);
    return { ...s, ready: false, detail: failing.join('; ') || `HTTP ${res.status}` };
  } catch (err) {
    return { ...s, detail: `no answer (${message(err)})` };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
