import type { StreamRow } from '@tributary/db/streams';

/** The stream as the caller gave it, plus id, status and statusMessage (chainIds is always in the config). */
export function formatStream(row: StreamRow): Record<string, unknown> {
  return { ...row.config, id: row.id, status: row.status, statusMessage: row.statusMessage };
}
