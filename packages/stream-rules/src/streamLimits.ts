/**
 * How large a stream's body may be, so that one tenant's stream cannot stall the shared matcher:
 * every number bounds work the matcher does per block (or memory it holds). The gateway checks
 * them when a stream is created or updated; the operator sets each one (the gateway's LIMIT_*
 * variables, README "Limits").
 */
export interface StreamLimits {
  /** Nesting of the body's JSON (objects and arrays within each other). */
  jsonDepth: number;
  /** Characters of `description`, `tag` and every other string of the body but the URL. */
  stringLength: number;
  /** Characters of `webhookUrl`. */
  urlLength: number;
  /** Items of `abi`, and of each trigger's `functionAbi` inputs and outputs together. */
  abiItems: number;
  /** Bytes of the body's JSON for `abi` and `triggers` together. */
  abiBytes: number;
  /** Nesting of one ABI type: array dimensions (`uint256[][]`) plus tuple components within each other. */
  typeDepth: number;
  /** Entries of `topic0`. */
  topic0: number;
  /** Entries of `advancedOptions`. */
  advancedOptions: number;
  /** Operators in all of a stream's advanced filters (`eq`, `in`, `and`, ... each count one). */
  filterOperators: number;
  /** Values in all of a stream's `in` / `nin` lists. */
  filterValues: number;
  /** Entries of `triggers`. */
  triggers: number;
  /** Entries of `getNativeBalances`, and selectors in each. */
  nativeBalanceSelectors: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = Object.freeze({
  jsonDepth: 32,
  stringLength: 1_000,
  urlLength: 2_048,
  abiItems: 250,
  abiBytes: 262_144,
  typeDepth: 8,
  topic0: 100,
  advancedOptions: 100,
  filterOperators: 500,
  filterValues: 10_000,
  triggers: 20,
  nativeBalanceSelectors: 20,
});

/** The gateway variable that sets each limit (named in the 422 that a body over it gets). */
export const STREAM_LIMIT_VARIABLES: Record<keyof StreamLimits, string> = Object.freeze({
  jsonDepth: 'LIMIT_JSON_DEPTH',
  stringLength: 'LIMIT_STRING_LENGTH',
  urlLength: 'LIMIT_URL_LENGTH',
  abiItems: 'LIMIT_ABI_ITEMS',
  abiBytes: 'LIMIT_ABI_BYTES',
  typeDepth: 'LIMIT_TYPE_DEPTH',
  topic0: 'LIMIT_TOPIC0',
  advancedOptions: 'LIMIT_ADVANCED_OPTIONS',
  filterOperators: 'LIMIT_FILTER_OPERATORS',
  filterValues: 'LIMIT_FILTER_VALUES',
  triggers: 'LIMIT_TRIGGERS',
  nativeBalanceSelectors: 'LIMIT_NATIVE_BALANCE_SELECTORS',
});

type Details = Record<string, { message: string }>;

/**
 * The limits a parsed stream body goes over, by field (empty: none). Checked before anything
 * that costs more than a walk of the body (ABI parsing, filter shapes).
 */
export function overLimits(config: Record<string, unknown>, limits: StreamLimits): Details {
  const details: Details = {};
  const over = (key: string, limit: keyof StreamLimits, what: string) => {
    details[key] ??= { message: `${what}: the limit is ${limits[limit]} (${STREAM_LIMIT_VARIABLES[limit]})` };
  };
  const url = config['webhookUrl'];
  if (typeof url === 'string' && url.length > limits.urlLength)
    over('webhookUrl', 'urlLength', `${url.length} characters`);
  const strings: [unknown, string][] = [[config, '']];
  while (strings.length > 0) {
    const [v, path] = strings.pop()!;
    if (typeof v === 'string') {
      if (path !== 'webhookUrl' && v.length > limits.stringLength)
        over(path, 'stringLength', `${v.length} characters`);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) strings.push([child, path ? `${path}.${k}` : k]);
    }
  }
  const list = (key: string) => (Array.isArray(config[key]) ? (config[key] as unknown[]) : []);
  const abi = list('abi');
  const triggers = list('triggers') as { functionAbi?: { inputs?: unknown[]; outputs?: unknown[] } }[];
  if (abi.length > limits.abiItems) over('abi', 'abiItems', `${abi.length} items`);
  const abiBytes = Buffer.byteLength(JSON.stringify({ abi, triggers }));
  if (abiBytes > limits.abiBytes) over('abi', 'abiBytes', `${abiBytes} bytes of abi and triggers`);
  const params: [unknown, string][] = [];
  for (const [i, item] of abi.entries()) {
    const { inputs, outputs } = (item ?? {}) as { inputs?: unknown; outputs?: unknown };
    if (Array.isArray(inputs))
      for (const [j, p] of inputs.entries()) params.push([p, `abi.${i}.inputs.${j}`]);
    if (Array.isArray(outputs))
      for (const [j, p] of outputs.entries()) params.push([p, `abi.${i}.outputs.${j}`]);
  }
  triggers.forEach((t, i) => {
    const fn = t?.functionAbi ?? {};
    const items = [
      ...(Array.isArray(fn.inputs) ? fn.inputs : []),
      ...(Array.isArray(fn.outputs) ? fn.outputs : []),
    ];
    if (items.length > limits.abiItems)
      over(`triggers.${i}.functionAbi`, 'abiItems', `${items.length} inputs and outputs`);
    for (const [j, p] of items.entries()) params.push([p, `triggers.${i}.functionAbi.${j}`]);
  });
  for (const [param, path] of params) {
    const depth = typeDepth(param, limits.typeDepth);
    if (depth > limits.typeDepth)
      over(path, 'typeDepth', `a type nested more than ${limits.typeDepth} levels`);
  }
  const topic0 = list('topic0');
  if (topic0.length > limits.topic0) over('topic0', 'topic0', `${topic0.length} entries`);
  const advanced = list('advancedOptions') as { filter?: unknown }[];
  if (advanced.length > limits.advancedOptions)
    over('advancedOptions', 'advancedOptions', `${advanced.length} entries`);
  let operators = 0;
  let values = 0;
  for (const o of advanced) {
    const size = filterSize(o?.filter);
    operators += size.operators;
    values += size.values;
  }
  if (operators > limits.filterOperators)
    over('advancedOptions', 'filterOperators', `${operators} filter operators`);
  if (values > limits.filterValues)
    over('advancedOptions', 'filterValues', `${values} values in in/nin lists`);
  if (triggers.length > limits.triggers) over('triggers', 'triggers', `${triggers.length} entries`);
  const balances = list('getNativeBalances') as { selectors?: unknown }[];
  const selectors = balances.reduce((n, b) => n + (Array.isArray(b?.selectors) ? b.selectors.length : 0), 0);
  if (balances.length > limits.nativeBalanceSelectors || selectors > limits.nativeBalanceSelectors)
    over(
      'getNativeBalances',
      'nativeBalanceSelectors',
      `${balances.length} entries with ${selectors} selectors`,
    );
  return details;
}

/** The deepest nesting of a JSON value, walked without recursion (a hostile body may be nested millions deep). */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAt) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Nesting of one ABI parameter's type: its array dimensions, plus its components' deepest, each tuple one more. */
function typeDepth(param: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[param, 0]];
  while (stack.length > 0) {
    const [p, above] = stack.pop()!;
    if (typeof p !== 'object' || p === null) continue;
    const { type, components } = p as { type?: unknown; components?: unknown };
    const dims = typeof type === 'string' ? countChar(type, '[', stopAt) : 0;
    const depth = above + dims + (Array.isArray(components) ? 1 : 0);
    if (depth > deepest) deepest = depth;
    if (deepest > stopAt) return deepest;
    if (Array.isArray(components)) for (const c of components) stack.push([c, depth]);
  }
  return deepest;
}

function countChar(s: string, c: string, stopAt: number): number {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0 && n <= stopAt; i = s.indexOf(c, i + 1)) n++;
  return n;
}

/** Operators and `in`/`nin` values of one advanced filter, walked without recursion. */
function filterSize(filter: unknown): { operators: number; values: number } {
  let operators = 0;
  let values = 0;
  const stack: unknown[] = [filter];
  while (stack.length > 0) {
    const f = stack.pop();
    if (typeof f !== 'object' || f === null || Array.isArray(f)) continue;
    for (const [op, arg] of Object.entries(f)) {
      operators++;
      if ((op === 'and' || op === 'or') && Array.isArray(arg)) stack.push(...arg);
      else if ((op === 'in' || op === 'nin') && Array.isArray(arg) && Array.isArray(arg[1]))
        values += arg[1].length;
    }
  }
  return { operators, values };
}
