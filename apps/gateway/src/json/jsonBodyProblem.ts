/**
 * What makes a parsed JSON body unusable although JSON.parse read it, in words for the caller:
 * nesting deeper than `maxDepth` levels (a scalar is level 0, `[]` level 1), or a NUL character
 * in a key or a string, which PostgreSQL text and jsonb cannot hold. Undefined when neither.
 * Walks with its own stack, so any depth JSON.parse accepts is measured without recursion.
 */
export function jsonBodyProblem(value: unknown, maxDepth: number): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  let hasNul = false;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v === 'string') {
      hasNul ||= v.includes('\u0000');
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > maxDepth) return `Request body nests deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (const child of v) stack.push([child, depth + 1]);
    } else {
      for (const [key, child] of Object.entries(v)) {
        hasNul ||= key.includes('\u0000');
        stack.push([child, depth + 1]);
      }
    }
  }
  return hasNul ? 'Request body strings must not contain the NUL character (\\u0000)' : undefined;
}
