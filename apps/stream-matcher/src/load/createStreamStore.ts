import { type Pool, getStreamById, loadMatchableStreams, loadStreamAddresses } from '@tributary/db';
import { type CompiledStream, type StreamConfig, StreamIndex, compileStream } from '@tributary/stream-rules';
import type { Logger } from 'pino';

/** The streams the matcher evaluates, in memory: loaded once, then refreshed one stream at a time on change events. */
export interface StreamStore {
  loadAll(): Promise<void>;
  reload(streamId: string): Promise<void>;
  /** The streams indexed by watched address (what a block is matched against). */
  index(): StreamIndex;
  size(): number;
  get(streamId: string): CompiledStream | undefined;
}

export function createStreamStore(opts: { pool: Pool; logger: Logger }): StreamStore {
  let index = new StreamIndex();

  const compile = (row: Awaited<ReturnType<typeof loadMatchableStreams>>[number], addresses: string[]) =>
    compileStream({
      id: row.id,
      accountId: row.accountId,
      status: row.status,
      startBlocks: row.startBlocks,
      config: row.config as StreamConfig,
      addresses,
    });

  return {
    async loadAll() {
      const rows = await loadMatchableStreams(opts.pool);
      const addresses = await loadStreamAddresses(
        opts.pool,
        rows.map((r) => r.id),
      );
      const next = new StreamIndex();
      for (const row of rows) {
        try {
          next.upsert(compile(row, addresses.get(row.id) ?? []));
        } catch (err) {
          opts.logger.error({ streamId: row.id, err }, 'stream config does not compile; skipped');
        }
      }
      index = next;
      opts.logger.info({ streams: next.size }, 'streams loaded');
    },
    async reload(streamId) {
      const row = await getStreamById(opts.pool, streamId);
      if (!row || (row.status !== 'active' && row.status !== 'error')) {
        index.remove(streamId);
        return;
      }
      const addresses = await loadStreamAddresses(opts.pool, [streamId]);
      try {
        index.upsert(compile(row, addresses.get(streamId) ?? []));
      } catch (err) {
        index.remove(streamId);
        opts.logger.error({ streamId, err }, 'stream config does not compile; skipped');
      }
    },
    index: () => index,
    size: () => index.size,
    get: (streamId) => index.get(streamId),
  };
}
