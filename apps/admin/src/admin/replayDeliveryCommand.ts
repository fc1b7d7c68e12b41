import type { Pool } from '@tributary/db';
import { findDeliveryOwner } from '@tributary/db/streams';
import { replayDelivery } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import { CommandFailure } from './adminErrors.ts';

/**
 * `deliveries replay <id>`: the delivery (delivered, failed or held) back to pending under a job
 * of its own, then that job enqueued, as the gateway's replay route does. The row names the job
 * before it exists, so if Redis fails here the sender's outbox relay enqueues it later.
 */
export async function replayDeliveryCommand(pool: Pool, queue: Queue, id: string): Promise<string> {
  const owner = await findDeliveryOwner(pool, id);
  if (!owner) throw new CommandFailure(`delivery ${id} not found`);
  const replayed = await replayDelivery(
    { pool, queue },
    { accountId: owner.accountId, streamId: owner.streamId, deliveryId: id },
  );
  if (!replayed) throw new CommandFailure(`delivery ${id} not found`); // deleted meanwhile
  return `delivery ${id} of stream ${owner.streamId} (block ${replayed.item.blockNumber}) is pending again as job ${replayed.jobId}`;
}
