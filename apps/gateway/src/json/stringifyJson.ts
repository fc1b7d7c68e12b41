import { RawJson } from './rawJson.ts';

/**
 * JSON.stringify with two differences: a bigint is written as a JSON integer with every digit
 * (uint256 amounts must not pass through a double), and a RawJson is written as its text. Undefined object members are left out, as
 * JSON.stringify does; Dates become their ISO string.
 */
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof RawJson) return value.json;
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (Array.isArray(value)) return `[${value.map(stringifyJson).join(',')}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
      }
      return `{${parts.join(',')}}`;
    }
  }
}
