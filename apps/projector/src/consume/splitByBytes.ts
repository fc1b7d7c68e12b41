import type { KafkaMessage } from 'kafkajs';

/**
 * Runs of messages of at most maxBytes of values each (one message always fits), as even as the
 * messages allow: 16 blocks under a limit of 5 make 4 + 4 + 4 + 4, not 5 + 5 + 5 + 1.
 */
export function splitByBytes(messages: KafkaMessage[], maxBytes: number): KafkaMessage[][] {
  const size = (m: KafkaMessage) => m.value?.length ?? 0;
  const pack = (limit: (bytes: number, next: number, chunk: number) => boolean) => {
    const chunks: KafkaMessage[][] = [];
    let start = 0;
    while (start < messages.length) {
      let end = start + 1;
      let bytes = size(messages[start]!);
      while (end < messages.length && limit(bytes, size(messages[end]!), chunks.length)) {
        bytes += size(messages[end]!);
        end++;
      }
      chunks.push(messages.slice(start, end));
      start = end;
    }
    return chunks;
  };
  // As few chunks as full packing needs, then as even as those allow.
  const full = pack((bytes, next) => bytes + next <= maxBytes);
  let total = 0;
  for (const m of messages) total += size(m);
  const target = total / Math.max(1, full.length);
  const even = pack(
    (bytes, next, chunk) =>
      bytes + next <= maxBytes && (chunk === full.length - 1 || bytes + next / 2 <= target),
  );
  return even.length <= full.length ? even : full;
}
