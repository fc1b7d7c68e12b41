import { type Failure, UNKNOWN_ATTEMPTS, classifyFailure } from '@tributary/runtime';
import type { KafkaMessage } from 'kafkajs';
import type { ChunkFailedError } from './createChunkPipeline.ts';
import { splitByBytes } from './splitByBytes.ts';

/** What a failed chunk asks for: try it again later, project its messages one by one, or set one aside. */
type Verdict =
  | { action: 'retry'; unknown?: { failure: Failure; attempt: number; of: number } }
  | { action: 'isolate'; failure: Failure; throughOffset: string }
  | { action: 'set-aside'; failure: Failure; offset: string };

export interface FailureTriage {
  judge(failed: ChunkFailedError): Verdict;
  /** The runs of messages to project in one transaction each: one message per run while isolating. */
  split(partition: number, messages: KafkaMessage[], maxBytes: number): KafkaMessage[][];
  /** Why this message is set aside instead of projected (undefined: project it). */
  setAsideReason(partition: number, offset: string): string | undefined;
  /** Offsets below `offset` of the partition are committed: what was kept for them can go. */
  committed(partition: number, offset: string): void;
}

/**
 * Tells the projector's failures apart (classifyFailure). A transient one (PostgreSQL away, a
 * serialization failure) is retried with backoff, forever. A deterministic one (a constraint
 * violation, a value the tables cannot take), or one of unknown cause that failed
 * `unknownAttempts` times, cannot be cured by retrying: the chunk's messages are projected one per
 * transaction to find the one that fails, and that one alone is set aside on the dead-letter
 * topic with the reason; the rest of the chunk is projected as usual.
 */
export function createFailureTriage(opts: { unknownAttempts?: number } = {}): FailureTriage {
  const unknownAttempts = opts.unknownAttempts ?? UNKNOWN_ATTEMPTS;
  const isolating = new Map<number, bigint>();
  const poison = new Map<string, string>();
  const unknownTries = new Map<string, number>();
  const key = (partition: number, offset: string) => `${partition}:${offset}`;

  return {
    judge(failed) {
      if (failed.stage !== 'project') return { action: 'retry' };
      const failure = classifyFailure(failed.cause);
      if (failure.kind === 'transient') return { action: 'retry' };
      const { chunk } = failed;
      // A message projected alone because its chunk failed for good already failed its tries.
      const isolated = isolating.get(chunk.partition);
      const alreadyTried =
        chunk.firstOffset === chunk.lastOffset &&
        isolated !== undefined &&
        BigInt(chunk.firstOffset) <= isolated;
      if (failure.kind === 'unknown' && !alreadyTried) {
        const k = key(chunk.partition, chunk.firstOffset);
        const tries = (unknownTries.get(k) ?? 0) + 1;
        unknownTries.set(k, tries);
        if (tries < unknownAttempts)
          return { action: 'retry', unknown: { failure, attempt: tries, of: unknownAttempts } };
        unknownTries.delete(k);
      }
      if (chunk.firstOffset !== chunk.lastOffset) {
        const through = BigInt(chunk.lastOffset);
        const already = isolating.get(chunk.partition);
        isolating.set(chunk.partition, already !== undefined && already > through ? already : through);
        return { action: 'isolate', failure, throughOffset: chunk.lastOffset };
      }
      const event = chunk.events[0];
      const block = event
        ? `block ${event.block.number} (${event.block.hash}, ${event.type}) of chain ${event.chainId}: `
        : '';
      poison.set(
        key(chunk.partition, chunk.firstOffset),
        failure.kind === 'deterministic'
          ? `${block}projection failed for good: ${failure.why}`
          : `${block}projection failed ${unknownAttempts} times, cause unknown: ${failure.why}`,
      );
      return { action: 'set-aside', failure, offset: chunk.firstOffset };
    },
    split(partition, messages, maxBytes) {
      const through = isolating.get(partition);
      if (through === undefined) return splitByBytes(messages, maxBytes);
      const alone = messages.filter((m) => BigInt(m.offset) <= through).map((m) => [m]);
      const rest = messages.filter((m) => BigInt(m.offset) > through);
      return [...alone, ...(rest.length > 0 ? splitByBytes(rest, maxBytes) : [])];
    },
    setAsideReason: (partition, offset) => poison.get(key(partition, offset)),
    committed(partition, offset) {
      const next = BigInt(offset);
      const through = isolating.get(partition);
      if (through !== undefined && through < next) isolating.delete(partition);
      for (const k of [...poison.keys(), ...unknownTries.keys()]) {
        const [p, o] = k.split(':');
        if (Number(p) === partition && BigInt(o!) < next) {
          poison.delete(k);
          unknownTries.delete(k);
        }
      }
    },
  };
}
