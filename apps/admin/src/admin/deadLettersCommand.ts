import { type StoredDeadLetter, readDeadLetters } from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { acknowledgeDeadLetters, deadLettersAcknowledgedAt } from '@tributary/db/ops';
import type { Kafka } from 'kafkajs';

/** Reading the topic joins a throwaway consumer group, which takes a few seconds. */
const READ_TIMEOUT_MS = 15_000;

/**
 * `dead-letters list`: the messages the consumers set aside (since the last acknowledgment, or
 * `all` of them the topic keeps), oldest first: when, which consumer, where from, why, and for a
 * block event which block (what `admin backfill` re-publishes once the cause is fixed).
 */
export async function listDeadLettersCommand(
  pool: Pool,
  kafka: Kafka,
  opts: { topicPrefix: string; all: boolean; json: boolean },
): Promise<string> {
  const acknowledgedAt = await deadLettersAcknowledgedAt(pool);
  const letters = (
    await readDeadLetters(kafka, { topicPrefix: opts.topicPrefix, timeoutMs: READ_TIMEOUT_MS })
  ).filter((l) => opts.all || acknowledgedAt === null || l.deadAt > acknowledgedAt);
  if (opts.json)
    return JSON.stringify(
      letters.map((l) => ({ ...l, block: blockOf(l) })),
      null,
      2,
    );
  const since = acknowledgedAt ? `since the acknowledgment of ${acknowledgedAt.toISOString()}` : 'in all';
  if (letters.length === 0) return `no dead letters ${opts.all ? 'kept' : since}`;
  return [`${letters.length} dead letter(s) ${opts.all ? 'kept' : since}`, ...letters.map(formatLetter)].join(
    '\n',
  );
}

/** `dead-letters ack`: every letter set aside until now has been looked at (readiness and status clear). */
export async function acknowledgeDeadLettersCommand(pool: Pool): Promise<string> {
  const at = await acknowledgeDeadLetters(pool);
  return `dead letters acknowledged up to ${at.toISOString()}`;
}

/** The chain and block of a dead block event, when the letter's bytes are one. */
function blockOf(l: StoredDeadLetter): { chainId: number; number: number; hash: string } | undefined {
  try {
    const e = JSON.parse(l.value) as { chainId?: unknown; block?: { number?: unknown; hash?: unknown } };
    if (
      typeof e.chainId === 'number' &&
      typeof e.block?.number === 'number' &&
      typeof e.block.hash === 'string'
    )
      return { chainId: e.chainId, number: e.block.number, hash: e.block.hash };
  } catch {
    // not JSON: a poison message
  }
  return undefined;
}

function formatLetter(l: StoredDeadLetter): string {
  const block = blockOf(l);
  return [
    l.deadAt.toISOString(),
    l.consumer,
    `${l.sourceTopic} partition ${l.sourcePartition} offset ${l.sourceOffset}`,
    ...(block ? [`chain ${block.chainId} block ${block.number} ${block.hash}`] : []),
    l.reason,
  ].join('  ');
}
