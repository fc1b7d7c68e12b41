import pg from 'pg';

const BYTEA_OID = 17;

/** PostgreSQL's hex output of a bytea (`\x0a1b…`) as our 0x-prefixed lower-case hex. */
const byteaAsHex = (text: string): string => `0x${text.slice(2)}`;

/**
 * Per-query `types` for read paths that answer with hex strings: bytea columns arrive as 0x hex
 * straight from PostgreSQL's text output (bytea_output = hex, the default) instead of being
 * decoded into a Buffer and encoded back to hex. Every other type parses as usual.
 */
export const hexByteaTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === BYTEA_OID && format !== 'binary') return byteaAsHex;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;
