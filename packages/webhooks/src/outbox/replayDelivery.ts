import type { Pool } from '@tributary/db';
import { type HistoryItem, prepareReplay } from '@tributary/db/streams';
import type { Queue } from 'bullmq';
import { enqueueDelivery } from './deliveryJobs.ts';
import { jobIdFor } from './jobIdFor.ts';

/**
 * A delivery (delivered, failed or held) sent again on request: back to pending under a job of
 * its own, named on its row first, then that job enqueued. Should Redis fail after the row is
 * written, the sender's relay enqueues it. Undefined: the account has no such delivery of that
 * stream. The one replay of the gateway's route and the admin command.
 */
export async function replayDelivery(
  deps: { pool: Pool; queue: Queue },
  r: { accountId: string; streamId: string; deliveryId: string },
): Promise<{ item: HistoryItem; jobId: string } | undefined> {
  const jobId = jobIdFor({ for: 'replay', deliveryId: r.deliveryId, at: Date.now() });
  const item = await prepareReplay(deps.pool, r.accountId, r.streamId, r.deliveryId, jobId);
  if (!item) return undefined;
  await enqueueDelivery(deps.queue, item.id, jobId);
  return { item, jobId };
}
