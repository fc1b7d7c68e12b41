import { describeBackfill } from '../admin/backfillCommand.ts';
import type { StreamBackfill } from '@tributary/db/streams';
import { escapeControls } from '../cli/escapeControls.ts';
import type { StatusSnapshot } from './readStatus.ts';

/**
 * The status as an operator reads it on a console: one line per part, then the verdict. What
 * services and nodes said (their errors) stays on its line: line breaks and escapes shown as text.
 */
export function formatStatus(s: StatusSnapshot, problems: readonly string[]): string {
  const lines: string[] = [];
  for (const c of s.chains) {
    const head =
      c.head === undefined ? `head ? (${escapeControls(c.headError ?? 'unknown')})` : `head ${c.head}`;
    const behind = c.head === undefined ? '' : `, ${Math.max(0, c.head - c.checkpoint)} behind`;
    const projected = c.projected === undefined ? 'none' : String(c.projected);
    lines.push(`chain ${c.chainId}: ${head}, follower at ${c.checkpoint}${behind}, tables at ${projected}`);
  }
  if (s.chains.length === 0) lines.push('chains: none followed yet');
  for (const g of s.consumers) lines.push(`consumer ${g.group}: lag ${g.lag} messages`);
  if (s.queue) {
    const q = s.queue;
    lines.push(
      `webhook queue: ${q['waiting'] ?? 0} waiting, ${q['active'] ?? 0} active, ${q['delayed'] ?? 0} delayed, ${q['failed'] ?? 0} failed`,
    );
  }
  if (s.deliveries) {
    const d = s.deliveries;
    const oldest = d.oldestPendingAt
      ? `, oldest pending ${Math.round((s.at - d.oldestPendingAt.getTime()) / 1000)} s old`
      : '';
    lines.push(`deliveries: ${d.pending} pending, ${d.held} held, ${d.failed} failed${oldest}`);
  }
  if (s.streams) {
    const parts = Object.entries(s.streams).map(([status, n]) => `${n} ${status}`);
    lines.push(`streams: ${parts.length > 0 ? parts.join(', ') : 'none'}`);
  }
  for (const b of s.backfills ?? []) lines.push(describeBackfill(b));
  for (const b of s.streamBackfills ?? []) lines.push(describeStreamBackfill(b));
  if (s.deadLetters) lines.push(`dead letters: ${s.deadLetters.open.length} not acknowledged`);
  for (const svc of s.services) {
    const state = svc.ready === undefined ? 'no answer' : svc.ready ? 'ready' : 'NOT READY';
    lines.push(
      `service ${svc.name}: ${state}${svc.detail && svc.ready !== undefined ? ` (${escapeControls(svc.detail)})` : ''}`,
    );
  }
  lines.push(problems.length === 0 ? 'OK: nothing is stuck' : `STUCK: ${problems.length} problem(s)`);
  for (const p of problems) lines.push(`  - ${escapeControls(p)}`);
  return lines.join('\n');
}

/** One running per-stream backfill: its range, progress, sources and why it waits. */
function describeStreamBackfill(b: StreamBackfill): string {
  const total = b.toBlock - b.fromBlock + 1;
  const kind = b.dryRun ? 'dry run' : 'backfill';
  const waiting = b.waiting ? `; waiting: ${escapeControls(b.waiting)}` : '';
  return `stream ${kind} ${b.id} of stream ${b.streamId} on chain ${b.chainId}: blocks ${b.fromBlock} to ${b.toBlock}, ${b.nextBlock - b.fromBlock} of ${total} evaluated (${b.blocksFromTables} from the tables, ${b.blocksFromNode} from the node), ${b.webhooks} webhooks${waiting}`;
}
