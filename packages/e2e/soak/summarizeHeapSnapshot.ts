import { readFileSync } from 'node:fs';

/**
 * What a V8 heap snapshot holds, by kind: the JIT's own (compiled code with its metadata, and the
 * weak lists V8 keeps beside it: the dependent-code lists of maps and the like) against what the
 * application holds (objects, strings, arrays, closures...), and each constructor's count and
 * bytes. Two of a service's snapshots taken at the end of a soak's warm-up and of its run tell its live
 * heap's growth apart: a JIT still compiling (bounded by the code there is) from data held.
 */
export interface HeapSnapshotSummary {
  totalBytes: number;
  /** Nodes of type `code`: machine code, bytecode, deopt data, relocation info, source positions. */
  jitBytes: number;
  /** V8's weak lists (`system / WeakArrayList`): dependent code of maps, prototype users, scripts. */
  weakListBytes: number;
  /** The rest: what the application's code reaches. */
  objectBytes: number;
  /** Per `type:name` (strings and numbers by type alone): count and self bytes. */
  byKind: Record<string, { count: number; bytes: number }>;
}

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const UNNAMED = new Set(['string', 'concatenated string', 'sliced string', 'number', 'heap number']);

/** The summary of a snapshot as written by v8.writeHeapSnapshot or `--heapsnapshot-signal`. */
function summarizeHeapSnapshot(raw: RawSnapshot): HeapSnapshotSummary {
  const fields = raw.snapshot.meta.node_fields;
  const types = raw.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const byKind: HeapSnapshotSummary['byKind'] = {};
  let totalBytes = 0;
  let jitBytes = 0;
  let weakListBytes = 0;
  for (let i = 0; i < raw.nodes.length; i += width) {
    const type = types[raw.nodes[i + typeAt]!] ?? 'unknown';
    const name = UNNAMED.has(type) ? '' : (raw.strings[raw.nodes[i + nameAt]!] ?? '').slice(0, 80);
    const bytes = raw.nodes[i + sizeAt]!;
    totalBytes += bytes;
    if (type === 'code') jitBytes += bytes;
    else if (name === 'system / WeakArrayList') weakListBytes += bytes;
    const key = `${type}:${name}`;
    const entry = byKind[key] ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += bytes;
    byKind[key] = entry;
  }
  return { totalBytes, jitBytes, weakListBytes, objectBytes: totalBytes - jitBytes - weakListBytes, byKind };
}

export function readHeapSnapshotSummary(path: string): HeapSnapshotSummary {
  return summarizeHeapSnapshot(JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot);
}

export interface HeapSnapshotGrowth {
  totalBytes: number;
  jitBytes: number;
  weakListBytes: number;
  objectBytes: number;
  /** The application's objects in the first snapshot: what objectBytes grew from (absent from runs
   * saved before 2ab8fde). */
  objectBytesBefore?: number;
  /** The kinds whose bytes changed most, either way. */
  top: { kind: string; bytes: number; count: number }[];
}

/** From `before` to `after`: the change of each part, and the `top` kinds that changed most. */
export function heapSnapshotGrowth(
  before: HeapSnapshotSummary,
  after: HeapSnapshotSummary,
  top = 12,
): HeapSnapshotGrowth {
  const kinds = new Set([...Object.keys(before.byKind), ...Object.keys(after.byKind)]);
  const changes = [...kinds]
    .map((kind) => ({
      kind,
      bytes: (after.byKind[kind]?.bytes ?? 0) - (before.byKind[kind]?.bytes ?? 0),
      count: (after.byKind[kind]?.count ?? 0) - (before.byKind[kind]?.count ?? 0),
    }))
    .filter((c) => c.bytes !== 0 || c.count !== 0)
    .sort((a, b) => Math.abs(b.bytes) - Math.abs(a.bytes));
  return {
    totalBytes: after.totalBytes - before.totalBytes,
    jitBytes: after.jitBytes - before.jitBytes,
    weakListBytes: after.weakListBytes - before.weakListBytes,
    objectBytes: after.objectBytes - before.objectBytes,
    objectBytesBefore: before.objectBytes,
    top: changes.slice(0, top),
  };
}
