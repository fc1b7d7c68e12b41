import { createHash } from 'node:crypto';

/**
 * Why a delivery job exists: the one catalog of the outbox's BullMQ job ids. A delivery row names
 * the job that owns it (deliveries.job_id) before the job is enqueued; only that job may attempt
 * it, and the sender's relay enqueues a pending row whose job went missing.
 *
 * - `block`: the matcher's job of a (stream, chain, block, kind): a replayed block event names the
 *   same job, which BullMQ adds once.
 * - `backfill`: a per-stream backfill's job of a block (one per backfill, stream and block).
 * - `batch`: the job of several deliveries of one block event (or backfill chunk), from the ids
 *   its members would have alone: the same members give the same job.
 * - `retry`, `alone`: a batch member that goes on as its own job (its retry, or its endpoint was
 *   busy, slow or over its stream's rate).
 * - `relay`: the relay's job for a pending delivery whose job was missing.
 * - `turn`: an ordered stream's next numbered delivery, once the one before it settled.
 * - `replay`, `resume`: a delivery sent again on request, or released when its stream is active again.
 */
export type DeliveryJobReason =
  | {
      for: 'block';
      streamId: string;
      chainId: number;
      blockHash: string;
      kind: 'unconfirmed' | 'confirmed' | 'removal';
    }
  | { for: 'backfill'; backfillId: string; streamId: string; chainId: number; blockHash: string }
  | { for: 'batch'; memberJobIds: readonly string[] }
  | { for: 'retry' | 'alone' | 'relay' | 'turn'; deliveryId: string }
  | { for: 'replay' | 'resume'; deliveryId: string; at: number };

const KIND_LETTER = { unconfirmed: 'u', confirmed: 'c', removal: 'r' } as const;

export function jobIdFor(reason: DeliveryJobReason): string {
  switch (reason.for) {
    case 'block':
      return `${reason.streamId}_${reason.chainId}_${reason.blockHash}_${KIND_LETTER[reason.kind]}`;
    case 'backfill':
      return `${reason.streamId}_${reason.chainId}_${reason.blockHash}_c_b${reason.backfillId}`;
    case 'batch': {
      const hash = createHash('sha256').update(reason.memberJobIds.join('\n')).digest('hex').slice(0, 32);
      return `batch_${reason.memberJobIds.length}_${hash}`;
    }
    case 'retry':
    case 'alone':
    case 'relay':
    case 'turn':
      return `${reason.deliveryId}_${reason.for}`;
    case 'replay':
    case 'resume':
      return `${reason.deliveryId}_${reason.for}_${reason.at}`;
    default: {
      const never: never = reason;
      return never;
    }
  }
}

/** Whether a job id is a batch job's (its data lists several deliveries). */
export const isBatchJobId = (jobId: string) => jobId.startsWith('batch_');
