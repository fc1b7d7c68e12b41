import type { Pool } from '@tributary/db';
import {
  findStreamsChangedSince,
  getStreamById,
  getStreamSetVersion,
  getStreamVersion,
  loadMatchableStreamVersions,
  loadMatchableStreams,
  loadStreamAddresses,
} from '@tributary/db/streams';
import { type CompiledStream, StreamIndex, compileStream } from '@tributary/stream-rules';
import type { StreamConfig } from '@tributary/schema';
import type { StreamStatus } from '@tributary/schema';
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
  /**
   * The check before blocks are evaluated: when the stream set's version (migration 066) moved
   * since this store last caught up, reloads the streams changed since. Every change committed
   * before the call is then in memory, whether or not its change event came. Returns the stream
   * ids it reloaded.
   */
  catchUp(): Promise<string[]>;
  /** The streams indexed by watched address (what a block is matched against). */
  index(): StreamIndex;
  size(): number;
  get(streamId: string): CompiledStream | undefined;
  /** The streams in memory by status (active, error). */
  countByStatus(): Map<StreamStatus, number>;
  /** The streams on a chain that opted in to removal notices (a scan: reorgs are rare). */
  notifyingRemovals(chainId: number): string[];
}

export function createStreamStore(opts: { pool: Pool; logger: Logger }): StreamStore {
  let index = new StreamIndex();
  // The config version each stream was loaded at (read before its row: a change in between makes
  // the version older than the row, so the next reconcile loads it again, never the reverse).
  let versions = new Map<string, string>();
  // The stream set version every change up to which is in memory.
  let setVersion = 0n;

  const compile = (row: Awaited<ReturnType<typeof loadMatchableStreams>>[number], addresses: string[]) =>
    compileStream({
      id: row.id,
      accountId: row.accountId,
      status: row.status,
      startBlocks: row.startBlocks,
      config: row.config as StreamConfig,
      addresses,
    });

  // Loads, reloads, reconciles and catch-ups run one at a time: each reads PostgreSQL afresh, so
  // the last one applied is never older than one before it (a slow reload of the change consumer
  // cannot overwrite what a catch-up just read).
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };

  async function reloadOne(streamId: string): Promise<void> {
    const version = await getStreamVersion(opts.pool, streamId);
    if (version === undefined) versions.delete(streamId);
    else versions.set(streamId, version);
    const row = await getStreamById(opts.pool, streamId);
    if (!row || (row.status !== 'active' && row.status !== 'error') || row.suspendedReason !== null) {
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
  }

  return {
    loadAll: () =>
      exclusive(async () => {
        // Read first: a change after it moves the version again and is caught up before a block.
        const loadedSetVersion = await getStreamSetVersion(opts.pool);
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
        setVersion = loadedSetVersion;
        opts.logger.info({ streams: next.size }, 'streams loaded');
      }),
    reload: (streamId) => exclusive(() => reloadOne(streamId)),
    reconcile: () =>
      exclusive(async () => {
        const current = await loadMatchableStreamVersions(opts.pool);
        const changed: string[] = [];
        for (const [id, version] of current) if (versions.get(id) !== version) changed.push(id);
        for (const id of versions.keys()) if (!current.has(id)) changed.push(id);
        for (const id of changed) await reloadOne(id);
        // A stream that left the matchable set (paused, deleted) is not tracked any more.
        for (const id of versions.keys()) if (!current.has(id)) versions.delete(id);
        return changed;
      }),
    catchUp: () =>
      exclusive(async () => {
        const current = await getStreamSetVersion(opts.pool);
        if (current <= setVersion) return [];
        const changed = await findStreamsChangedSince(opts.pool, setVersion);
        for (const id of changed) await reloadOne(id);
        setVersion = current;
        return changed;
      }),
    index: () => index,
    size: () => index.size,
    get: (streamId) => index.get(streamId),
    countByStatus() {
      const counts = new Map<StreamStatus, number>();
      for (const s of index.values()) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
      return counts;
    },
    notifyingRemovals: (chainId) =>
      [...index.values()]
        .filter((s) => s.config.notifyRemovals === true && s.chainIds.has(chainId))
        .map((s) => s.id),
  };
}
