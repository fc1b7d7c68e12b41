import type pg from 'pg';

type Queryable = Pick<pg.Client, 'query'>;

/** What one table costs on disk per row, every index included. */
export interface TableBytes {
  rows: number;
  /** The row data (heap), its TOAST and its free-space and visibility maps. */
  tableBytes: number;
  /** Each index by name. */
  indexBytes: Record<string, number>;
  /** pg_total_relation_size: the table and all its indexes. */
  totalBytes: number;
  /** totalBytes / rows. */
  bytesPerRow: number;
}

/**
 * Bytes per row of each table, all indexes included (pg_total_relation_size over an exact row
 * count). Sizes are as the files stand: a table whose indexes were built in one go is denser than
 * one whose indexes grew row by row (a page that fills up splits in two).
 */
export async function measureTableBytes(
  db: Queryable,
  tables: readonly string[],
): Promise<Record<string, TableBytes>> {
  const out: Record<string, TableBytes> = {};
  for (const table of tables) {
    const { rows } = await db.query<{ n: string; total: string; indexes: Record<string, string> | null }>(
      `SELECT (SELECT count(*) FROM ${table}) AS n, pg_total_relation_size($1::regclass) AS total,
              (SELECT json_object_agg(i.relname, pg_relation_size(i.oid) ORDER BY i.relname)
                 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = $1::regclass) AS indexes`,
      [table],
    );
    const r = rows[0]!;
    const indexBytes = Object.fromEntries(Object.entries(r.indexes ?? {}).map(([k, v]) => [k, Number(v)]));
    const total = Number(r.total);
    const n = Number(r.n);
    out[table] = {
      rows: n,
      tableBytes: total - Object.values(indexBytes).reduce((a, b) => a + b, 0),
      indexBytes,
      totalBytes: total,
      bytesPerRow: n > 0 ? Number((total / n).toFixed(1)) : 0,
    };
  }
  return out;
}
