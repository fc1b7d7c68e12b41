import { createHash } from 'node:crypto';

const names = new Map<string, string>();

/**
 * A stable prepared-statement name for a query text (same text, same name in every session), so
 * each pooled session parses and plans a query shape once. Names are memoised per text.
 */
export function statementName(prefix: string, sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `${prefix}_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    names.set(sql, name);
  }
  return name;
}
