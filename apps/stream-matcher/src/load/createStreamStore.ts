import {
  type Pool,
  getStreamById,
  getStreamVersion,
  loadMatchableStreamVersions,
  loadMatchableStreams,
  loadStreamAddresses,
} from '@tributary/db';
import { type CompiledStream, type StreamConfig, StreamIndex, compileStream } from '@tributary/stream-rules';
import type { Logger } from 'pino';

/** The streams the matcher evaluates, in memory: loaded once, then refreshed one stream at a time on change events. */
export interface StreamStore {
  loadAll(): Promise<void>;
  reload(streamId: string): Promise<void>;
  /**
   * Reloads the streams whose config version moved since they were loaded, adds the ones it
   * lacks and drops the ones no longer matchable: the safety net for a change event that never
   * came. Returns the stream ids it changed.
   */
  reconcile(): Promise<string[]>;
  /** The streams indexed by watched address (what a block is matched against). */
  index(): StreamIndex;
  size(): number;
  get(streamId: string): CompiledStream | undefined;
  /** The streams on a chain that opted in to removal notices (a scan: reorgs are rare). */
  notifyingRemovals(chainId: number): string[];
}

export function createStreamStore(opts: { pool: Pool; logger: Logger }): StreamStore {
  let index = new StreamIndex();
  // The config version each stream was loaded at (read before its row: a change in between makes
  // the version older than the row, so the next reconcile loads it again, never the reverse).
  let versions = new Map<string, string>();

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
      const loadedVersions = await loadMatchableStreamVersions(opts.pool);
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
      versions = loadedVersions;
      opts.logger.info({ streams: next.size }, 'streams loaded');
    },
    async reload(streamId) {
      const version = await getStreamVersion(opts.pool, streamId);
      if (version === undefined) versions.delete(streamId);
      else versions.set(streamId, version);
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
    async reconcile() {
      const current = await loadMatchableStreamVersions(opts.pool);
      const changed: string[] = [];
      for (const [id, version] of current) if (versions.get(id) !== version) changed.push(id);
      for (const id of versions.keys()) if (!current.has(id)) changed.push(id);
      for (const id of changed) await this.reload(id);
      // A stream that left the matchable set (paused, deleted) is not tracked any more.
      for (const id of versions.keys()) if (!current.has(id)) versions.delete(id);
      return changed;
    },
    index: () => index,
    size: () => index.size,
    get: (streamId) => index.get(streamId),
    notifyingRemovals: (chainId) =>
      [...index.values()]
        .filter((s) => s.config.notifyRemovals === true && s.chainIds.has(chainId))
        .map((s) => s.id),
  };
}
