/**
 * The advancedOptions filter language: `{op: [field, value]}` with op one of eq, ne, lt, gt, lte,
 * gte, in, nin; `{and: [filter...]}`, `{or: [filter...]}`. Fields are decoded event parameter
 * names, plus moralis_streams_contract_address and moralis_streams_possibleSpam. Integers compare
 * as bigint (uint256 safe); addresses and hex compare case-insensitively.
 */
const COMPARE_OPS = ['eq', 'ne', 'lt', 'gt', 'lte', 'gte'] as const;
const SET_OPS = ['in', 'nin'] as const;
const GROUP_OPS = ['and', 'or'] as const;
const BUILTIN_FIELDS = ['moralis_streams_contract_address', 'moralis_streams_possibleSpam'];

type Filter = Record<string, unknown>;

/** Returns a message describing the first problem, or undefined when the filter is well formed. */
export function checkFilterShape(filter: unknown, fields: Set<string>): string | undefined {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    return 'a filter must be an object';
  const entries = Object.entries(filter);
  if (entries.length !== 1) return 'a filter object must have exactly one operator';
  const [op, arg] = entries[0]!;
  if ((GROUP_OPS as readonly string[]).includes(op)) {
    if (!Array.isArray(arg) || arg.length === 0) return `${op} takes a non-empty array of filters`;
    for (const f of arg) {
      const problem = checkFilterShape(f, fields);
      if (problem) return problem;
    }
    return undefined;
  }
  const isSet = (SET_OPS as readonly string[]).includes(op);
  if (!isSet && !(COMPARE_OPS as readonly string[]).includes(op)) return `unknown filter operator ${op}`;
  if (!Array.isArray(arg) || arg.length !== 2 || typeof arg[0] !== 'string')
    return `${op} takes [field, value]`;
  if (!fields.has(arg[0]) && !BUILTIN_FIELDS.includes(arg[0])) return `unknown filter field ${arg[0]}`;
  if (isSet && !Array.isArray(arg[1])) return `${op} takes [field, [values]]`;
  return undefined;
}

function normalize(v: unknown): bigint | string | boolean | undefined {
  if (typeof v === 'bigint' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : String(v);
  if (typeof v === 'string') {
    if (/^-?[0-9]+$/.test(v)) return BigInt(v);
    return /^0x[0-9a-fA-F]*$/.test(v) ? v.toLowerCase() : v;
  }
  return undefined;
}

/** A filter compiled once: its constants normalised ahead, its operators resolved to closures. */
export type CompiledFilter = (fields: Record<string, unknown>) => boolean;

function compareNormalized(
  x: bigint | string | boolean | undefined,
  y: bigint | string | boolean | undefined,
) {
  if (x === undefined || y === undefined) return undefined;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  const sx = String(x);
  const sy = String(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

const TESTS: Record<string, (c: number) => boolean> = {
  eq: (c) => c === 0,
  ne: (c) => c !== 0,
  lt: (c) => c < 0,
  gt: (c) => c > 0,
  lte: (c) => c <= 0,
  gte: (c) => c >= 0,
};

/** Compiles a well-formed filter (see checkFilterShape); same results as evaluateFilter. */
export function compileFilter(filter: Filter): CompiledFilter {
  const [op, arg] = Object.entries(filter)[0] ?? [];
  if (op === 'and' || op === 'or') {
    const parts = (arg as Filter[]).map(compileFilter);
    return op === 'and' ? (f) => parts.every((p) => p(f)) : (f) => parts.some((p) => p(f));
  }
  const [field, value] = arg as [string, unknown];
  if (op === 'in' || op === 'nin') {
    // Equal under compareNormalized is equal as a string (bigints compare as their digits): one
    // lookup per log, whatever the list's length.
    const set = new Set<string>();
    for (const v of value as unknown[]) {
      const y = normalize(v);
      if (y !== undefined) set.add(String(y));
    }
    const wanted = op === 'in';
    return (f) => {
      const x = normalize(f[field]);
      return (x !== undefined && set.has(String(x))) === wanted;
    };
  }
  const y = normalize(value);
  const test = op === undefined ? undefined : TESTS[op];
  if (!test) return () => false;
  return (f) => {
    const c = compareNormalized(normalize(f[field]), y);
    return c === undefined ? op === 'ne' : test(c);
  };
}

export function evaluateFilter(filter: Filter, fields: Record<string, unknown>): boolean {
  return compileFilter(filter)(fields);
}
