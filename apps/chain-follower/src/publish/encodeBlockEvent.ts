import { DecodeError } from '@tributary/bus';
import { type BlockEvent, blockEvent } from '@tributary/schema';

/**
 * The JSON bytes of a block event the follower built itself with typed code. The schema checks
 * its shape on a sample (arrays cut to their first element, as the bus codec's encodeOwn does);
 * consumers validate every element.
 */
const utf8 = new TextEncoder();

export function encodeBlockEvent(event: BlockEvent): Buffer {
  const sample = blockEvent.safeParse(sampleArrays(event));
  if (!sample.success) throw new DecodeError(`message does not match schema: ${sample.error.message}`);
  // TextEncoder: the fastest UTF-8 encoder for large strings; the Buffer shares its memory.
  const bytes = utf8.encode(JSON.stringify(event));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A shallow copy whose top-level arrays longer than 16 keep only their first element. Transfers
 * name logs: a cut sample keeps the first transfer with the log it names.
 */
function sampleArrays(event: BlockEvent): unknown {
  if (event.type === 'removed') return event;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event)) out[k] = Array.isArray(v) && v.length > 16 ? v.slice(0, 1) : v;
  if (event.logs.length > 16) {
    const first = event.transfers[0];
    const named = first ? event.logs.filter((l) => l.logIndex === first.logIndex) : [];
    out['logs'] = named.length > 0 ? named : event.logs.slice(0, 1);
    out['transfers'] = first && named.length > 0 ? [first] : [];
  }
  return out;
}
