import type { Pool } from '@tributary/db';
import { getStreamById, listHistory, listStreamAddresses } from '@tributary/db/streams';
import { escapeControls } from '../cli/escapeControls.ts';
import { CommandFailure } from './adminErrors.ts';

const RECENT = 10;

/** `streams show <id>`: one stream's config, status, success rate, addresses and recent deliveries. */
export async function showStreamCommand(pool: Pool, id: string, json: boolean): Promise<string> {
  const stream = await getStreamById(pool, id);
  if (!stream) throw new CommandFailure(`stream ${id} not found`);
  const [addresses, history] = await Promise.all([
    listStreamAddresses(pool, id, 0),
    listHistory(pool, stream.accountId, { limit: RECENT, streamId: id }),
  ]);
  const recent = history.items.map((d) => ({
    id: d.id,
    createdAt: d.createdAt.toISOString(),
    chainId: d.chainId,
    block: d.blockNumber,
    confirmed: d.confirmed,
    status: d.status,
    attempts: d.attempts,
    lastError: d.lastError,
  }));
  const shown = {
    id: stream.id,
    accountId: stream.accountId,
    status: stream.status,
    statusMessage: stream.statusMessage,
    successRate: stream.successRate,
    chainIds: stream.chainIds,
    createdAt: stream.createdAt.toISOString(),
    addresses: addresses.total,
    deliveries: history.total,
    config: stream.config,
    recentDeliveries: recent,
  };
  if (json) return JSON.stringify(shown, null, 2);
  return [
    `stream ${stream.id} (account ${stream.accountId})`,
    `status ${stream.status}${stream.statusMessage ? `: ${escapeControls(stream.statusMessage)}` : ''}, success rate ${stream.successRate}%`,
    `chains ${stream.chainIds.join(',')}, ${addresses.total} address(es), ${history.total} deliveries`,
    `config ${JSON.stringify(stream.config, null, 2)}`,
    `recent deliveries (newest first, at most ${RECENT}):`,
    ...(recent.length === 0
      ? ['  none']
      : recent.map(
          (d) =>
            `  ${d.id}  ${d.createdAt}  chain ${d.chainId} block ${d.block} ${d.confirmed ? 'confirmed' : 'unconfirmed'}  ${d.status}, ${d.attempts} attempt(s)${d.lastError ? `: ${escapeControls(d.lastError)}` : ''}`,
        )),
  ].join('\n');
}
