import { type Pool, getStreamById, loadMatchableStreams, loadStreamAddresses } from '@tributary/db';
import { type CompiledStream, type StreamConfig, compileStream } from '@tributary/stream-rules';
import type { Logger } from 'pino';

/** The streams the matcher evaluates, in memory: loaded once, then refreshed one stream at a time on change events. */
export interface StreamStore {
  loadAll(): Promise<void>;
  reload(streamId: string): Promise<void>;
  forChain(chainId: number): CompiledStream[];
  size(): number;
  get(streamId: string): CompiledStream | undefined;
}

export function createStreamStore(opts: { pool: Pool; logger: Logger }): StreamStore {
  let streams = new Map<string, CompiledStream>();

  const compile = (row: Awaited<ReturnType<typeof loadMatchableStreams>>[number], addresses: string[]) =>
    compileStream({
      id: row.id,
      accountId: row.accountId,
      status: row.status,
      createdAt: row.createdAt,
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
      const next = new Map<string, CompiledStream>();
      for (const row of rows) {
        try {
          next.set(row.id, compile(row, addresses.get(row.id) ?? []));
        } catch (err) {
          opts.logger.error({ streamId: row.id, err }, 'stream config does not compile; skipped');
        }
      }
      streams = next;
      opts.logger.info({ streams: next.size }, 'streams loaded');
    },
    async reload(streamId) {
      const row = await getStreamById(opts.pool, streamId);
      if (!row || (row.status !== 'active' && row.status !== 'error')) {
        streams.delete(streamId);
        return;
      }
      const addresses = await loadStreamAddresses(opts.pool, [streamId]);
      streams.set(streamId, compile(row, addresses.get(streamId) ?? []));
    },
    forChain(chainId) {
      const out: CompiledStream[] = [];
      for (const s of streams.values()) if (s.chainIds.has(chainId)) out.push(s);
      return out;
    },
    size: () => streams.size,
    get: (streamId) => streams.get(streamId),
  };
}
