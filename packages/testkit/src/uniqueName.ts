import { randomBytes } from 'node:crypto';

/**
 * A name no other test or run uses: `prefix-<time>-<random>`, lower-case and safe for Kafka topics,
 * consumer groups, BullMQ queues and (with `_` separators) PostgreSQL identifiers.
 */
export function uniqueName(prefix: string, separator: '-' | '_' = '-'): string {
  const time = Date.now().toString(36);
  const random = randomBytes(5).toString('hex');
  return [prefix.toLowerCase(), time, random].join(separator);
}
