/** An unpaired UTF-16 surrogate (with the u flag a pair is one code point, outside the class). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * What makes a parsed JSON body unusable although JSON.parse read it, in words for the caller:
 * nesting deeper than `maxDepth` levels (a scalar is level 0, `[]` level 1), or a key or string
 * that PostgreSQL text and jsonb cannot hold: a NUL character, or an unpaired surrogate (`\ud800`
 * is valid JSON but no Unicode character). Undefined when none of these.
 * Walks with its own stack, so any depth JSON.parse accepts is measured without recursion.
 */
export function jsonBodyProblem(value: unknown, maxDepth: number): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  let hasNul = false;
  let hasLoneSurrogate = false;
  const check = (text: string) => {
    hasNul ||= text.includes('\u0000');
    hasLoneSurrogate ||= LONE_SURROGATE.test(text);
  };
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v === 'string') {
      check(v);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > maxDepth) return `Request body nests deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (const child of v) stack.push([child, depth + 1]);
    } else {
      for (const [key, child] of Object.entries(v)) {
        check(key);
        stack.push([child, depth + 1]);
      }
    }
  }
  if (hasNul) return 'Request body strings must not contain the NUL character (\\u0000)';
  if (hasLoneSurrogate)
    return 'Request body strings must be valid Unicode (no unpaired surrogate such as \\ud800)';
  return undefined;
}
