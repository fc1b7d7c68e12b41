import type { StatusSnapshot } from './readStatus.ts';

/**
 * What is wrong, judged from two looks some seconds apart (the same look twice judges only what
 * one look shows): a server or service that does not answer or is not ready, and work waiting
 * that made no progress between the looks. An empty list: nothing is stuck.
 */
export function judgeStatus(before: StatusSnapshot, after: StatusSnapshot): string[] {
  const problems: string[] = [];
  const spanned = after.at > before.at;
  for (const u of after.unreadable) problems.push(`${u.source} cannot be read: ${u.error}`);
  for (const s of after.services) {
    if (s.ready === undefined)
      problems.push(`${s.name} does not answer at ${s.url}: ${s.detail ?? ''}`.trim());
    else if (!s.ready) problems.push(`${s.name} is not ready: ${s.detail ?? ''}`.trim());
  }
  for (const c of after.chains) {
    const was = before.chains.find((b) => b.chainId === c.chainId);
    if (c.headError) problems.push(`chain ${c.chainId}: the node's head is unknown (${c.headError})`);
    if (c.head !== undefined && c.checkpoint > c.head)
      problems.push(
        `chain ${c.chainId}: the follower is at block ${c.checkpoint}, beyond the node's head ${c.head} (another chain, or a node that fell behind)`,
      );
    if (spanned && was && c.head !== undefined && c.head > c.checkpoint && c.checkpoint === was.checkpoint)
      problems.push(
        `chain ${c.chainId}: the follower is stuck at block ${c.checkpoint}, ${c.head - c.checkpoint} behind the head`,
      );
    if (
      spanned &&
      was &&
      c.projected !== undefined &&
      c.projected < c.checkpoint &&
      c.projected === was.projected
    )
      problems.push(
        `chain ${c.chainId}: the query tables are stuck at block ${c.projected}, ${c.checkpoint - c.projected} behind the follower`,
      );
  }
  for (const g of after.consumers) {
    const was = before.consumers.find((b) => b.group === g.group);
    if (spanned && was && g.lag > 0 && was.lag > 0 && g.committed === was.committed)
      problems.push(`consumer group ${g.group}: ${g.lag} messages behind and no offset committed meanwhile`);
  }
  const open = after.deadLetters?.open ?? [];
  if (open.length > 0) {
    const last = open[open.length - 1]!;
    problems.push(
      `${open.length} message(s) set aside on the dead-letter topic since ${after.deadLetters?.acknowledgedAt ? `the acknowledgment of ${after.deadLetters.acknowledgedAt.toISOString()}` : 'the start'}; last: ${last.consumer} at ${last.deadAt.toISOString()}, ${last.sourceTopic} partition ${last.sourcePartition} offset ${last.sourceOffset}: ${last.reason} (npm run admin -- dead-letters list; then dead-letters ack)`,
    );
  }
  const q0 = before.queue;
  const q1 = after.queue;
  if (spanned && q0 && q1) {
    if (
      (q0['waiting'] ?? 0) > 0 &&
      (q1['waiting'] ?? 0) > 0 &&
      (q0['active'] ?? 0) === 0 &&
      (q1['active'] ?? 0) === 0
    )
      problems.push(`webhook queue: ${q1['waiting']} jobs waiting and no worker taking them`);
    const jobs = (q: Record<string, number>) =>
      (q['waiting'] ?? 0) + (q['active'] ?? 0) + (q['delayed'] ?? 0) + (q['prioritized'] ?? 0);
    const d0 = before.deliveries;
    const d1 = after.deliveries;
    if (d0 && d1 && d0.pending > 0 && d1.pending > 0 && jobs(q0) === 0 && jobs(q1) === 0)
      problems.push(
        `${d1.pending} pending deliveries and no job in the webhook queue (is the sender's relay running?)`,
      );
  }
  return problems;
}
