import { randomUUID } from 'node:crypto';
import { type Pool, findToken, insertDelivery } from '@tributary/db';
import type { BlockEvent } from '@tributary/schema';
import { TRANSFER_TOPIC, type TokenInfo, matchBlock } from '@tributary/stream-rules';
import { deliveryJobId, enqueueDelivery, serializeWebhook } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { StreamStore } from '../load/createStreamStore.ts';

export interface BlockHandlerDeps {
  pool: Pool;
  store: StreamStore;
  queue: Queue;
  logger: Logger;
}

/**
 * One block event: for every stream of the chain that matches, store the delivery (held when the
 * stream is in error) and enqueue it with a deterministic job id. Idempotent: a replayed event
 * finds its delivery rows and enqueues only those still pending (BullMQ drops duplicate ids).
 */
export function createBlockHandler(deps: BlockHandlerDeps): (event: BlockEvent) => Promise<number> {
  const tokenCache = new Map<string, TokenInfo>();

  async function prefetchTokens(chainId: number, addresses: Set<string>): Promise<void> {
    for (const address of addresses) {
      const key = `${chainId}:${address}`;
      if (tokenCache.has(key)) continue;
      const token = await findToken(deps.pool, chainId, address);
      if (token) tokenCache.set(key, { name: token.name, symbol: token.symbol, decimals: token.decimals });
    }
  }

  return async (event) => {
    if (event.type === 'removed') return 0; // an orphaned block never gets its confirmed webhook
    const streams = deps.store
      .forChain(event.chainId)
      .filter((s) => event.block.timestamp >= s.createdAtSeconds);
    if (streams.length === 0) return 0;
    const known = new Set(event.tokens.map((t) => t.address));
    await prefetchTokens(
      event.chainId,
      new Set(
        event.logs
          .filter((l) => l.topics[0] === TRANSFER_TOPIC && !known.has(l.address))
          .map((l) => l.address),
      ),
    );
    const confirmed = event.type === 'confirmed';
    let enqueued = 0;
    for (const stream of streams) {
      const match = matchBlock(stream, event, (a) => tokenCache.get(`${event.chainId}:${a}`));
      if (!match) continue;
      const delivery = await insertDelivery(deps.pool, {
        id: randomUUID(),
        streamId: stream.id,
        chainId: event.chainId,
        blockNumber: event.block.number,
        blockHash: event.block.hash,
        confirmed,
        body: serializeWebhook(match.body),
        status: stream.status === 'error' ? 'held' : 'pending',
        logsCount: match.logsCount,
        txsCount: match.txsCount,
      }).catch((err: { code?: string }) => {
        // The stream was deleted while this block was evaluated.
        if (err.code === '23503') return undefined;
        throw err;
      });
      if (!delivery || delivery.status !== 'pending') continue;
      await enqueueDelivery(
        deps.queue,
        delivery.id,
        deliveryJobId(stream.id, event.chainId, event.block.hash, confirmed),
      );
      enqueued++;
      deps.logger.debug(
        {
          streamId: stream.id,
          block: event.block.number,
          hash: event.block.hash,
          confirmed,
          deliveryId: delivery.id,
        },
        'delivery enqueued',
      );
    }
    return enqueued;
  };
}
