import type { Pool } from '@tributary/db';
import { releaseHeldDeliveries } from '@tributary/db/streams';
import type { Queue } from 'bullmq';
import { enqueueDelivery } from './deliveryJobs.ts';
import { jobIdFor } from './jobIdFor.ts';

/**
 * A stream active again: its held deliveries back to pending, each under a job named on its row
 * first, then enqueued (should this stop half way, the relay enqueues the rest). Returns how many.
 */
export async function resumeHeldDeliveries(
  deps: { pool: Pool; queue: Queue },
  streamId: string,
): Promise<number> {
  const at = Date.now();
  // The rows are named in one statement: the job id of each is its id and this suffix.
  const suffix = jobIdFor({ for: 'resume', deliveryId: '', at });
  const released = await releaseHeldDeliveries(deps.pool, streamId, suffix);
  for (const deliveryId of released) await enqueueDelivery(deps.queue, deliveryId, `${deliveryId}${suffix}`);
  return released.length;
}
