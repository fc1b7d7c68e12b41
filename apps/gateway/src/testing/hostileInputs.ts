import fc from 'fast-check';

/**
 * fast-check arbitraries of what a careless or hostile client sends: path segments, query strings,
 * headers and bodies. Values near the valid ones (so the handlers get past their first check) are
 * mixed with broken percent-encodings, unicode, NUL characters, huge and deeply nested inputs.
 */

const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const byteEscape = fc
  .integer({ min: 0, max: 255 })
  .map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`);
const unicode = fc.string({ unit: 'grapheme', maxLength: 6 });
const utf8Escapes = unicode.map(encodeURIComponent);
const brokenEscape = fc.constantFrom(
  '%',
  '%Z',
  '%ZZ',
  '%G1',
  '%%',
  '%0',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '%FF%FE',
  '%u0041',
  '%F4%90%80%80',
  '%00',
);
const ascii = fc.string({ unit: 'binary-ascii', maxLength: 10 });

/** Text with valid and broken percent-encodings, unicode and control characters. */
export const hostileText = fc
  .array(fc.oneof(ascii, unicode, byteEscape, utf8Escapes, brokenEscape), { maxLength: 6 })
  .map((parts) => parts.join(''));

/** A few kilobytes up to tens of kilobytes of one repeated piece. */
const longText = fc
  .tuple(fc.integer({ min: 1_000, max: 40_000 }), fc.constantFrom('a', '%41', 'é', '%ZZ', '0', '\u0000'))
  .map(([n, piece]) => piece.repeat(n));

/** Ids that look like uuids at a glance: the right length and alphabet, the wrong shape. */
const uuidLike = fc.oneof(
  fc.constantFrom(
    '-'.repeat(36),
    'a'.repeat(36),
    'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaa-',
    '{00000000-0000-0000-0000-000000000000}',
  ),
  fc.stringMatching(/^[0-9a-fA-F-]{36}$/),
);

/** A path segment: a known good value, hostile text, a uuid or near-uuid, or a very long one. */
export function segment(good: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...good), weight: 24 },
    { arbitrary: hostileText, weight: 6 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: uuidLike, weight: 1 },
    { arbitrary: longText, weight: 1 },
  );
}

const PARAM_NAMES = [
  'chain',
  'limit',
  'cursor',
  'order',
  'from_block',
  'to_block',
  'block_number',
  'from_date',
  'to_date',
  'topic0',
  'topic1',
  'topic2',
  'topic3',
  'contract_addresses',
  'streamId',
  'excludePayload',
  'disable_total',
  'format',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
] as const;

const odd = fc.constantFrom(
  '',
  ' ',
  '0',
  '1',
  '100',
  '101',
  '-1',
  '1e3',
  '1.5',
  '0x10',
  ' 5',
  'NaN',
  'Infinity',
  '99999999999999999999',
  '9007199254740993',
  'asc',
  'DESC',
  'true',
  'false',
  'null',
  'eth',
  '0x1',
  '0x7a69',
  'devnet',
  ' ETH ',
  '0x',
  '0xffffffffffffffff',
  ADDRESS,
  ADDRESS.toUpperCase(),
  `0x${'z'.repeat(40)}`,
  TOPIC,
  `${TOPIC}00`,
  '2024-01-01',
  '2024-02-30T25:61:61Z',
  '-271821-04-20T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '-010000-01-01T00:00:00Z',
  '999999999999',
  'Thu, 01 Jan 1970 00:00:00 GMT',
  'eyJ2IjoxfQ.c2ln',
  'a.b.c',
  '.',
  '00000000-0000-0000-0000-000000000000',
  '-'.repeat(36),
  'a'.repeat(36),
  'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaa-',
  'a\u0000b',
);

/** A query value: near-valid, hostile, long or a uuid. */
const queryValue = fc.oneof(
  { arbitrary: odd, weight: 20 },
  { arbitrary: hostileText, weight: 12 },
  { arbitrary: longText, weight: 1 },
  { arbitrary: fc.uuid(), weight: 2 },
);

/** A query key in every form qs reads: plain, `a[]`, `a[0]`, `a[b][c]`, prototype names. */
const queryKey = fc.oneof(
  fc.constantFrom(...PARAM_NAMES),
  fc
    .tuple(fc.constantFrom(...PARAM_NAMES), fc.constantFrom('[]', '[0]', '[1]', '[150]', '[99999]'))
    .map(([k, s]) => `${k}${s}`),
  fc
    .tuple(fc.constantFrom(...PARAM_NAMES), fc.array(hostileText, { minLength: 1, maxLength: 6 }))
    .map(([k, path]) => `${k}${path.map((p) => `[${p}]`).join('')}`),
  fc.constantFrom('__proto__[x]', 'constructor[prototype][x]', 'a[__proto__][b]', '[]', '[', ']'),
  hostileText,
);

/** Pairs as a query string (with its `?`), raw: nothing is escaped that the pair does not escape. */
function toQuery(pairs: readonly (readonly [string, string])[]): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join('&')}`;
}

/**
 * A query string for a route: each of its parameters absent, fitting or hostile, plus a few hostile
 * pairs; sometimes hundreds of repeats (arrays past qs's arrayLimit, parameters past its limit).
 */
export function queryFor(fitting: Record<string, readonly string[]>): fc.Arbitrary<string> {
  const params = Object.entries(fitting).map(([name, values]) =>
    fc.option(
      fc
        .oneof({ arbitrary: fc.constantFrom(...values), weight: 9 }, { arbitrary: queryValue, weight: 1 })
        .map((v) => [name, v] as const),
      { freq: 3 },
    ),
  );
  const extra = fc.oneof(
    { arbitrary: fc.constant([]), weight: 2 },
    { arbitrary: fc.array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 3 }), weight: 1 },
  );
  const repeats = fc.oneof(
    { arbitrary: fc.constant(0), weight: 12 },
    { arbitrary: fc.integer({ min: 100, max: 1_500 }), weight: 1 },
  );
  return fc.tuple(fc.tuple(...params), extra, fc.boolean(), repeats).map(([given, more, extraFirst, n]) => {
    const own = given.filter((p): p is readonly [string, string] => p !== null);
    const pairs = extraFirst ? [...more, ...own] : [...own, ...more];
    return toQuery([...pairs, ...Array<[string, string]>(n).fill(['limit[]', '1'])]);
  });
}

/** Header text: printable Latin-1 (what fetch can send), sometimes long. */
const headerText = fc.oneof(
  {
    arbitrary: fc.string({
      unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    }),
    weight: 8,
  },
  { arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'k'.repeat(n)), weight: 1 },
);

export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/json; charset="utf-8"',
    'application/json; charset=nonsense',
    'application/json;;;',
    'application/vnd.api+json',
    'text/plain',
    'text/html',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '*/*',
  ),
  headerText,
);

/** Extra headers (mostly none): odd content types, encodings the body does not have, odd ids. */
export const extraHeaders = fc.option(
  fc.record(
    {
      'content-type': contentType,
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'),
      accept: fc.oneof(fc.constantFrom('text/html', 'application/xml', '*/*', ''), headerText),
      'x-request-id': headerText,
    },
    { requiredKeys: [] },
  ),
  { freq: 2, nil: {} },
);

/** A JSON string as text (so that `__proto__` stays a plain key, as a client can send it). */
function objectText(entries: [string, string][]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

const jsonText = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
/** Strings PostgreSQL cannot hold: with a NUL character or an unpaired surrogate. */
const stringWithNul = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('\u0000', '\ud800', '\udfff'),
    fc.string({ maxLength: 8 }),
  )
  .map(([a, bad, b]) => `${a}${bad}${b}`);
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** Nesting deep enough to exhaust a recursive walk. */
const deep = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([n, open]) => `${open.repeat(n)}1${(open === '[' ? ']' : '}').repeat(n)}`);

const huge = fc
  .tuple(fc.integer({ min: 1_000, max: 60_000 }), fc.constantFrom(JSON.stringify(ADDRESS), '1', '{}', '"x"'))
  .map(([n, item]) => `[${Array(n).fill(item).join(',')}]`);

/** Values that fit a field, or their JSON texts (for values too deep to stringify). */
export type Fitting = readonly unknown[] | fc.Arbitrary<string>;

/** A JSON value's text for a field: fitting values, wrong types, NUL, deep, huge, polluted. */
function fieldText(fitting: Fitting): fc.Arbitrary<string> {
  const fits = Array.isArray(fitting)
    ? fc.constantFrom(...[null, ...fitting].map((v) => JSON.stringify(v)))
    : (fitting as fc.Arbitrary<string>);
  return fc.oneof(
    { arbitrary: fits, weight: 6 },
    { arbitrary: jsonText, weight: 3 },
    { arbitrary: stringWithNul.map((s) => JSON.stringify(s)), weight: 1 },
    { arbitrary: deep, weight: 1 },
    { arbitrary: huge, weight: 1 },
    {
      arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), jsonText).map(([k, v]) => objectText([[k, v]])),
      weight: 1,
    },
  );
}

/**
 * A body for a route whose fields are given with the values that fit them: a valid body with a
 * field or two replaced, an object of some of the fields (each fitting or hostile) plus prototype
 * keys, every field at once, or broken JSON.
 */
export function bodyText(
  fields: Record<string, Fitting>,
  valid: Record<string, unknown>,
): fc.Arbitrary<string> {
  const field = fc
    .constantFrom(...Object.keys(fields))
    .chain((name) => fieldText(fields[name] ?? []).map((v): [string, string] => [name, v]));
  const proto = fc.tuple(fc.constantFrom(...PROTO_KEYS), fieldText([{}, null, { webhookUrl: 'x' }]));
  const object = fc
    .tuple(fc.array(field, { maxLength: 10 }), fc.array(proto, { maxLength: 2 }))
    .map(([fs, ps]) => objectText([...fs, ...ps]));
  const nearlyValid = fc.array(field, { maxLength: 2 }).map((changed) =>
    objectText([
      ...Object.entries(valid)
        .filter(([k]) => !changed.some(([c]) => c === k))
        .map(([k, v]): [string, string] => [k, JSON.stringify(v)]),
      ...changed,
    ]),
  );
  const complete = fc
    .record(Object.fromEntries(Object.entries(fields).map(([k, vs]) => [k, fieldText(vs)])))
    .map((r) => objectText(Object.entries(r)));
  const broken = fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '{"a":1,}',
      "{'a':1}",
      'nul',
      'NaN',
      '\uFEFF{}',
      '{"a":1}{"b":2}',
      '[]',
      '0',
      '"s"',
      'null',
    ),
    fc.string({ maxLength: 40 }),
    deep,
    huge,
  );
  return fc.oneof(
    { arbitrary: nearlyValid, weight: 4 },
    { arbitrary: complete, weight: 2 },
    { arbitrary: object, weight: 3 },
    { arbitrary: broken, weight: 2 },
  );
}
