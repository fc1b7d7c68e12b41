/**
 * Helpers for pages that PostgreSQL writes as one text value, one line per record (the records'
 * JSON written in SQL): the wire formats both data pages share, in one place.
 */

/** A timestamptz column as the API writes timestamps: ISO 8601 UTC with milliseconds ("…T12:00:05.000Z"). */
export const isoTimestampSql = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `string_agg` of the lines in page order; the aggregate's separator, a raw newline, never occurs inside a line (JSON escapes it). */
export const linesAggSql = (line: string, order: string): string =>
  `string_agg(${line}, E'\\n' ORDER BY ${order})`;

/** The lines of such a page (none when the page is empty: string_agg gives null). */
export const pageLines = (records: string | null | undefined): string[] =>
  records ? records.split('\n') : [];
