import { z } from 'zod';

/**
 * An array of `element` whose elements are first tried by `fast`, a hand-written check of the
 * common case that returns the element's parsed value (the same value `element` gives) or
 * undefined; an element it does not vouch for is parsed by `element` itself, so the result and
 * every issue (with its path) are exactly those of `z.array(element)`. For the arrays of many
 * thousands of elements in block events, where zod's per-field machinery would dominate.
 */
export function fastArray<T extends z.ZodType>(
  element: T,
  fast: (value: unknown) => z.output<T> | undefined,
): z.ZodType<z.output<T>[], unknown> {
  return z.unknown().transform((input, ctx) => {
    if (!Array.isArray(input)) {
      ctx.addIssue({ code: 'invalid_type', expected: 'array', input, message: 'expected array' });
      return z.NEVER;
    }
    const out: z.output<T>[] = new Array(input.length);
    let failed = false;
    for (let i = 0; i < input.length; i++) {
      const quick = fast(input[i]);
      if (quick !== undefined) {
        out[i] = quick;
        continue;
      }
      const parsed = element.safeParse(input[i]);
      if (parsed.success) out[i] = parsed.data;
      else {
        failed = true;
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ ...issue, path: [i, ...issue.path] } as z.core.$ZodRawIssue);
        }
      }
    }
    return failed ? z.NEVER : out;
  });
}

// 0-9 and a-f: lower-case hex digits, as the follower writes them.
const HEX = new Uint8Array(128);
for (const c of '0123456789abcdef') HEX[c.charCodeAt(0)] = 1;

/** A 0x-prefixed lower-case hex string of `digits` digits (any even number when undefined). */
export function isLowerHex(value: unknown, digits?: number): value is `0x${string}` {
  if (typeof value !== 'string') return false;
  const n = value.length;
  if (digits === undefined ? (n & 1) !== 0 : n !== digits + 2) return false;
  if (value.charCodeAt(0) !== 48 || value.charCodeAt(1) !== 120) return false;
  for (let i = 2; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c > 127 || HEX[c] === 0) return false;
  }
  return true;
}

export function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Unsigned decimal digits without leading zeros. */
export function isUintString(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0) return false;
  if (value.length > 1 && value.charCodeAt(0) === 48) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
