import { type Pool, findDeliveryOwner, prepareReplay } from '@tributary/db';
import { enqueueDelivery } from '@tributary/webhooks';
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
  const jobId = `${id}_replay_${Date.now()}`;
  const item = await prepareReplay(pool, owner.accountId, owner.streamId, id, jobId);
  if (!item) throw new CommandFailure(`delivery ${id} not found`); // deleted meanwhile
  await enqueueDelivery(queue, id, jobId);
  return `delivery ${id} of stream ${owner.streamId} (block ${item.blockNumber}) is pending again as job ${jobId}`;
}
