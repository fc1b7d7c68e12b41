import { Counter, type Registry } from 'prom-client';

/**
 * `tributary_consumer_gaps_total{group, kind}`: gaps a consumer group found in the block topic
 * (`offsets`: the broker lost messages; `blocks`: a chain's new blocks skipped some), each one
 * repaired by asking the follower to publish the missing blocks again.
 */
export function createConsumerGapCounter(
  registry: Registry,
  group: string,
): (kind: 'offsets' | 'blocks') => void {
  const counter = new Counter({
    name: 'tributary_consumer_gaps_total',
    help: 'Gaps a consumer group found in the block topic (offsets: the broker lost messages; blocks: blocks skipped), each re-published',
    labelNames: ['group', 'kind'],
    registers: [registry],
  });
  for (const kind of ['offsets', 'blocks']) counter.inc({ group, kind }, 0);
  return (kind) => counter.inc({ group, kind });
}
