import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppName } from '@tributary/testkit/bench';
import { afterEach, describe, expect, it } from 'vitest';
import type { SupervisedApp } from '../chaos/superviseApp.ts';
import { heapSnapshotGrowth, readHeapSnapshotSummary } from '../soak/summarizeHeapSnapshot.ts';
import { heapSnapshotNodeOptions, takeHeapSnapshots } from '../soak/takeHeapSnapshots.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'heap-snapshot-test-'));
  dirs.push(d);
  return d;
};

describe('summarizeHeapSnapshot', () => {
  it('tells the objects a process came to hold apart from the rest of its heap', () => {
    const dir = tempDir();
    // A small process of its own: a snapshot, 20,000 records it keeps, a second snapshot.
    execFileSync(process.execPath, [
      '-e',
      `const v8 = require('node:v8');
       class HeldRecord { constructor(i) { this.id = i; this.at = i * 2; } }
       v8.writeHeapSnapshot(${JSON.stringify(join(dir, 'before.heapsnapshot'))});
       globalThis.held = Array.from({ length: 20000 }, (_, i) => new HeldRecord(i));
       v8.writeHeapSnapshot(${JSON.stringify(join(dir, 'after.heapsnapshot'))});`,
    ]);
    const before = readHeapSnapshotSummary(join(dir, 'before.heapsnapshot'));
    const after = readHeapSnapshotSummary(join(dir, 'after.heapsnapshot'));
    expect(before.totalBytes).toBe(before.jitBytes + before.weakListBytes + before.objectBytes);
    expect(before.jitBytes).toBeGreaterThan(0);
    expect(before.byKind['object:HeldRecord']).toBeUndefined();
    expect(after.byKind['object:HeldRecord']?.count).toBe(20_000);

    const growth = heapSnapshotGrowth(before, after);
    const held = growth.top.find((t) => t.kind === 'object:HeldRecord');
    expect(held?.count).toBe(20_000);
    // Each record is a JS object of a few words, and the array holding them is one more.
    expect(held?.bytes).toBeGreaterThanOrEqual(20_000 * 16);
    expect(growth.objectBytes).toBeGreaterThanOrEqual(held?.bytes ?? Number.POSITIVE_INFINITY);
    expect(growth.totalBytes).toBe(growth.jitBytes + growth.weakListBytes + growth.objectBytes);
  });
});

describe('takeHeapSnapshots', () => {
  it('has each running process write a whole snapshot on the signal, and skips one that is down', async () => {
    const dir = tempDir();
    const snapshotDir = join(dir, 'gateway');
    // A process started as the soak starts a service: the snapshot options, and an ops port.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () =>
           console.log(s.address().port));`,
      ],
      {
        env: { ...process.env, NODE_OPTIONS: heapSnapshotNodeOptions(snapshotDir) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    const port = await new Promise<string>((resolve) =>
      child.stdout?.once('data', (d) => resolve(String(d).trim())),
    );
    const running = { pid: () => child.pid } as unknown as SupervisedApp;
    const down = { pid: () => undefined } as unknown as SupervisedApp;
    const lines: string[] = [];

    const files = await takeHeapSnapshots({
      apps: new Map<AppName, SupervisedApp>([
        ['gateway', running],
        ['projector', down],
      ]),
      opsUrls: new Map<AppName, string>([
        ['gateway', `http://127.0.0.1:${port}`],
        ['projector', 'http://127.0.0.1:1'],
      ]),
      dirOf: (app) => join(dir, app),
      log: (l) => lines.push(l),
    });

    expect(Object.keys(files)).toEqual(['gateway']);
    expect(files.gateway?.startsWith(snapshotDir)).toBe(true);
    // Whole: it parses, and it holds the process's server.
    const summary = readHeapSnapshotSummary(files.gateway!);
    expect(summary.byKind['object:Server']?.count).toBeGreaterThanOrEqual(1);
    expect(lines).toEqual(['heap snapshot of projector: not running, none taken']);
    expect(child.exitCode).toBeNull();
  });
});
