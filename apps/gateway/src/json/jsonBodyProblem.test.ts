import { describe, expect, it } from 'vitest';
import { jsonBodyProblem } from './jsonBodyProblem.ts';

function nested(levels: number): unknown {
  return JSON.parse(`${'[{"a":'.repeat(levels)}"x"${'}]'.repeat(levels)}`);
}

const TOO_DEEP = 'Request body nests deeper than 64 levels';
const NUL = 'Request body strings must not contain the NUL character (\\u0000)';

describe('jsonBodyProblem', () => {
  it('counts each array and object as a level', () => {
    expect(jsonBodyProblem(1, 0)).toBeUndefined();
    expect(jsonBodyProblem([], 0)).toBe('Request body nests deeper than 0 levels');
    expect(jsonBodyProblem({ a: [1, { b: 2 }] }, 3)).toBeUndefined();
    expect(jsonBodyProblem({ a: [1, { b: 2 }] }, 2)).toBe('Request body nests deeper than 2 levels');
    expect(jsonBodyProblem(nested(32), 64)).toBeUndefined();
    expect(jsonBodyProblem(nested(33), 64)).toBe(TOO_DEEP);
  });

  it('measures nesting far past the call stack without overflowing it', () => {
    expect(jsonBodyProblem(nested(200_000), 64)).toBe(TOO_DEEP);
  });

  it('finds a NUL character in any string or key', () => {
    expect(jsonBodyProblem('a\u0000', 64)).toBe(NUL);
    expect(jsonBodyProblem({ tag: ['ok', { deep: 'x\u0000y' }] }, 64)).toBe(NUL);
    expect(jsonBodyProblem(JSON.parse('{"k\\u0000":1}'), 64)).toBe(NUL);
    expect(jsonBodyProblem({ tag: 'ok', n: 0, b: false, z: null }, 64)).toBeUndefined();
  });

  it('finds an unpaired surrogate, and lets a pair (one character) through', () => {
    const lone = 'Request body strings must be valid Unicode (no unpaired surrogate such as \\ud800)';
    expect(jsonBodyProblem(JSON.parse('{"tag":"a\\ud800b"}'), 64)).toBe(lone);
    expect(jsonBodyProblem(JSON.parse('{"\\udfff":1}'), 64)).toBe(lone);
    expect(jsonBodyProblem(JSON.parse('["\\ud83d\\ude00"]'), 64)).toBeUndefined();
    expect(jsonBodyProblem({ tag: '\u{1F600} é' }, 64)).toBeUndefined();
  });
});
