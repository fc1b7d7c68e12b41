import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as apiErrors from '../errors/apiErrors.ts';

/**
 * Finds, in the gateway's source, the statuses a function can answer with: the ApiErrors it
 * constructs (mapped by STATUS_BY_KIND), the literal statuses it sends, and the same for every
 * gateway function it calls, by name, transitively. A name may resolve to several definitions: the
 * result errs towards more statuses, never fewer.
 */
export interface StatusScanner {
  /** Statuses of a piece of source text (a handler's `toString()`) and of what it calls. */
  statusesOfText(text: string): Set<number>;
  /** Statuses of the gateway functions with this name. */
  statusesOf(name: string): Set<number>;
}

const SRC = join(import.meta.dirname, '..');
const KEYWORDS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'return',
  'function',
  'typeof',
  'await',
  'new',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testing' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Function definitions by name: a definition runs to the closing line at its own indentation. */
function definitions(files: string[]): Map<string, string[]> {
  const defs = new Map<string, string[]>();
  const start =
    /^(\s*)(?:export\s+)?(?:async\s+)?(?:function\s+(\w+)|(?:const|let)\s+(\w+)\s*(?::[^=]+)?=|(\w+)\s*(?:<[^>]*>)?\([^)]*\)\s*(?::[^{]+)?\{$)/;
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const m = start.exec(line);
      const name = m?.[2] ?? m?.[3] ?? m?.[4];
      if (!m || !name || KEYWORDS.has(name)) return;
      const indent = m[1] ?? '';
      let end = i;
      if (!/;\s*$/.test(line)) {
        end = lines.findIndex(
          (l, j) => j > i && l.startsWith(indent) && /^[}\])][;,)]*$/.test(l.slice(indent.length).trimEnd()),
        );
        if (end === -1) end = lines.length - 1;
      }
      const body = lines.slice(i, end + 1).join('\n');
      defs.set(name, [...(defs.get(name) ?? []), body]);
    });
  }
  return defs;
}

function statusByErrorClass(): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, value] of Object.entries(apiErrors)) {
    if (typeof value !== 'function' || !(value.prototype instanceof apiErrors.ApiError)) continue;
    const Ctor = value as unknown as new (arg: unknown) => apiErrors.ApiError;
    out.set(name, apiErrors.STATUS_BY_KIND[new Ctor({}).kind]);
  }
  return out;
}

export function createStatusScanner(): StatusScanner {
  const defs = definitions(sourceFiles(SRC));
  const byClass = statusByErrorClass();
  const memo = new Map<string, Set<number>>();

  function direct(text: string): Set<number> {
    const out = new Set<number>();
    // Test runners compile a call of an import to `(0, __import__.name)(...)`.
    for (const m of text.matchAll(/new\s+(?:[\w$]+\.)*(\w+Error)\s*\(/g)) {
      const status = byClass.get(m[1] ?? '');
      if (status !== undefined) out.add(status);
    }
    for (const m of text.matchAll(/(?:sendJson\)?\(\s*res\s*,|\.status\()\s*(\d{3})\b/g))
      out.add(Number(m[1]));
    return out;
  }

  function scan(text: string, seen: Set<string>): Set<number> {
    const out = direct(text);
    for (const m of text.matchAll(/(?:[\w$]+\.)*(\w+)\)?\s*\(/g)) {
      const name = m[1] ?? '';
      if (seen.has(name) || !defs.has(name)) continue;
      for (const s of statusesOfName(name, seen)) out.add(s);
    }
    return out;
  }

  function statusesOfName(name: string, seen: Set<string>): Set<number> {
    const cached = memo.get(name);
    if (cached) return cached;
    const next = new Set(seen).add(name);
    const out = new Set<number>();
    for (const body of defs.get(name) ?? []) for (const s of scan(body, next)) out.add(s);
    // Only a result computed without a cycle cut short is final.
    if (seen.size === 0) memo.set(name, out);
    return out;
  }

  return {
    statusesOfText: (text) => scan(text, new Set()),
    statusesOf: (name) => statusesOfName(name, new Set()),
  };
}
