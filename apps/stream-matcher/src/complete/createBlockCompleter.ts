import { type BlockContentsReader, type RpcBlock, createBlockContentsReader, toHex } from '@tributary/evm';
import {
  type BlockContents,
  type FullBlockEvent,
  contentsOf,
  describeContents,
  unionContents,
} from '@tributary/schema';
import type { Logger } from 'pino';
import type { BlockReaders } from '../read/createBlockReaders.ts';

/** What completing a block gave: the block with the parts asked for, or proof that the chain dropped it. */
export type Completion =
  | { outcome: 'completed'; event: FullBlockEvent }
  | { outcome: 'orphaned'; canonicalHash: string };

/**
 * The node cannot give a part a stream reads (it is down, lags, or cannot trace the block): the
 * block waits, retried with backoff, and readiness says why. Never evaluated without the part.
 */
export class BlockContentsUnavailableError extends Error {
  override readonly name = 'BlockContentsUnavailableError';
  readonly retryable = true;
}

export interface BlockCompleter {
  /** The event with `missing` read from the node, by the block's hash. Throws BlockContentsUnavailableError to wait. */
  complete(event: FullBlockEvent, missing: BlockContents): Promise<Completion>;
}

/**
 * Completes a block event that reached the matcher without a part that one of its streams reads
 * (published before the follower knew of the stream, or by a follower whose node could not trace
 * it): reads that part from the chain's node with the same reader the follower uses. A block the
 * node has replaced at its height was orphaned: it gets its `removed` event, and the streams that
 * read the missing part are not owed a webhook for it.
 */
export function createBlockCompleter(deps: { readers: BlockReaders; logger: Logger }): BlockCompleter {
  const contentReaders = new Map<number, BlockContentsReader>();
  function readerFor(chainId: number): BlockContentsReader {
    let reader = contentReaders.get(chainId);
    if (!reader) {
      const call = deps.readers.rpc(chainId);
      if (!call)
        throw new BlockContentsUnavailableError(
          `no RPC endpoint is configured for chain ${chainId} (RPC_URL / EXTRA_RPC_URLS)`,
        );
      reader = createBlockContentsReader({ call, logger: deps.logger });
      contentReaders.set(chainId, reader);
    }
    return reader;
  }

  return {
    async complete(event, missing) {
      const what = describeContents(missing);
      const where = `block ${event.block.number} (${event.block.hash}) of chain ${event.chainId}`;
      const reader = readerFor(event.chainId);
      let read: Awaited<ReturnType<BlockContentsReader['readByHash']>>;
      try {
        read = await reader.readByHash(event.block.hash, unionContents(contentsOf(event), missing));
      } catch (err) {
        throw new BlockContentsUnavailableError(
          `reading the ${what} of ${where} failed: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      if (!read) {
        // The node has no block with that hash: orphaned (another block holds the height) or the
        // node lags behind the follower's (wait for it).
        const call = deps.readers.rpc(event.chainId)!;
        const atHeight = await call<RpcBlock | null>('eth_getBlockByNumber', [
          toHex(event.block.number),
          false,
        ]).catch(() => null);
        if (atHeight && atHeight.hash.toLowerCase() !== event.block.hash) {
          return { outcome: 'orphaned', canonicalHash: atHeight.hash.toLowerCase() };
        }
        throw new BlockContentsUnavailableError(`the node does not have ${where} yet (reading its ${what})`);
      }
      const { contents } = read;
      if (missing.transactions && contents.transactions === null)
        throw new BlockContentsUnavailableError(`the node gave no transactions for ${where}`);
      if (missing.internalTransactions && contents.internalTransactions === null)
        throw new BlockContentsUnavailableError(
          `${contents.untraced ?? 'the node could not trace the block'}: ${where} waits for its internal transactions`,
        );
      return {
        outcome: 'completed',
        event: {
          ...event,
          transactions: contents.transactions ?? event.transactions,
          hasTransactions: event.hasTransactions || contents.transactions !== null,
          internalTransactions: contents.internalTransactions ?? event.internalTransactions,
          hasInternalTransactions: event.hasInternalTransactions || contents.internalTransactions !== null,
        },
      };
    },
  };
}
