import { escapeControls } from '../cli/escapeControls.ts';
import type { Pool } from '@tributary/db';
import { type StreamOverview, listStreamOverviews } from '@tributary/db/streams';
import type { StreamStatus } from '@tributary/schema';

/** `streams list`: every stream across accounts, one line each (or the rows as JSON). */
export async function listStreamsCommand(
  pool: Pool,
  opts: { status?: StreamStatus; accountId?: string; json: boolean },
): Promise<string> {
  const rows = await listStreamOverviews(pool, {
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.accountId ? { accountId: opts.accountId } : {}),
  });
  if (opts.json) return JSON.stringify(rows, null, 2);
  if (rows.length === 0) return 'no streams';
  return [`${rows.length} stream(s)`, ...rows.map(formatOverview)].join('\n');
}

function formatOverview(s: StreamOverview): string {
  return [
    s.id,
    `account ${s.accountId}`,
    s.status,
    `tag ${JSON.stringify(s.tag)}`,
    // One line per stream: a stored URL's own line breaks and escapes are shown, not obeyed.
    escapeControls(s.webhookUrl),
    `chains ${s.chainIds.join(',')}`,
    `deliveries ${s.pending} pending, ${s.held} held, ${s.failed} failed`,
  ].join('  ');
}
