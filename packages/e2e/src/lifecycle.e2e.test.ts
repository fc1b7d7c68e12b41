import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Server, createServer } from 'node:net';
import { freePort } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import type { AppName } from '@tributary/testkit/bench';

const APPS: AppName[] = ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'];
const DEADLINE_MS = 10_000;

// Every deployable, as its own process: it becomes ready, serves its health and metrics, and on
// SIGTERM stops taking work, drains and exits 0 well within its shutdown deadline.
describe('service lifecycle', () => {
  let pipeline: Pipeline;
  let gatewayOpsPort: number;

  beforeAll(async () => {
    pipeline = await startPipeline({
      name: 'life',
      apps: APPS,
      env: Object.fromEntries(APPS.map((a) => [a, { SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS) }])),
    });
    gatewayOpsPort = pipeline.running('gateway')!.port;
  });
  afterAll(async () => {
    await pipeline?.close();
  });

  async function scrape(app: AppName): Promise<Map<string, { type: string; labels: Set<string> }>> {
    const text = await (await fetch(`http://127.0.0.1:${pipeline.running(app)!.port}/metrics`)).text();
    const families = new Map<string, { type: string; labels: Set<string> }>();
    for (const m of text.matchAll(/^# TYPE (tributary_\S+) (\S+)$/gm))
      families.set(m[1] as string, { type: m[2] as string, labels: new Set() });
    for (const m of text.matchAll(/^(tributary_[a-z_]+)\{([^}]*)\}/gm)) {
      const name = m[1] as string;
      const family = families.get(name) ?? families.get(name.replace(/_(bucket|count|sum)$/, ''));
      for (const l of (m[2] as string).matchAll(/(\w+)="/g)) family?.labels.add(l[1] as string);
    }
    return families;
  }

  it('exports every series the Grafana dashboard queries (infra/grafana/dashboards/tributary.json)', async () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../../../infra/grafana/dashboards/tributary.json', import.meta.url), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    // Metric names in the queries, with a histogram's _bucket / _count / _sum folded to the family.
    const wanted = new Set<string>();
    for (const panel of dashboard.panels)
      for (const t of panel.targets)
        for (const m of t.expr.matchAll(/\b(tributary_[a-z_]+)\b/g))
          wanted.add((m[1] as string).replace(/_(bucket|count|sum)$/, ''));
    expect(wanted.size).toBeGreaterThan(15);
    const exported = new Set<string>();
    for (const app of APPS) for (const family of (await scrape(app)).keys()) exported.add(family);
    expect([...wanted].filter((name) => !exported.has(name))).toEqual([]);
  });

  it("exports exactly the project's metrics the README's table lists, with their types, services and labels", async () => {
    const documented = readmeMetrics();
    expect(documented.length).toBeGreaterThan(30);
    for (const app of APPS) {
      const families = await scrape(app);
      const expected = documented.filter((d) => d.services.includes(app));
      expect([...families.keys()].sort(), app).toEqual(expected.map((d) => d.name).sort());
      for (const d of expected) {
        const family = families.get(d.name)!;
        expect(family.type, d.name).toBe(d.type);
        // Labels seen so far (a family with no observation yet shows none) are the documented ones.
        for (const label of family.labels) expect([...d.labels, 'service', 'le'], d.name).toContain(label);
      }
    }
  });

  for (const app of APPS) {
    it(`${app}: ready, health and metrics, then a clean exit on SIGTERM within its deadline`, async () => {
      const service = pipeline.running(app)!;
      const base = `http://127.0.0.1:${service.port}`;

      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('ok');
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain(`process_cpu_user_seconds_total{service="${app}"}`);

      // Exit code 0: every shutdown step finished; a step still hanging at the deadline would have
      // forced exit code 70, and one that failed exit code 1.
      expect(await pipeline.stop(app)).toEqual({ code: 0, signal: null });
    });
  }

  // Its ops port answers while the rest is still built: ready must mean that the public port takes
  // requests, or the first ones meet a port nobody listens on. A port held by another process (a
  // predecessor still draining) is waited for, and said so.
  it('gateway: not ready while its public port is taken, then ready and serving once it is let go', async () => {
    // Its ops port is the pipeline's gateway's: that one stops first (the test above stops it too).
    if (pipeline.running('gateway')) await pipeline.stop('gateway');
    const held = await freePort();
    const holder: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(held, '127.0.0.1', resolve));
    let released = false;
    let settled = false;
    const started = pipeline.start('gateway', { HTTP_PORT: String(held) }).finally(() => {
      settled = true;
    });
    try {
      // Every /readyz answer of its ops port until it is seen waiting for the port.
      const answers: { status: number; checks?: Record<string, { ok: boolean; error?: string }> }[] = [];
      const waiting = () =>
        answers.some((a) => a.checks?.['http']?.error?.includes('is taken by another process'));
      while (!waiting() && !settled) {
        try {
          const res = await fetch(`http://127.0.0.1:${gatewayOpsPort}/readyz`, {
            signal: AbortSignal.timeout(2_000),
          });
          answers.push({ status: res.status, ...((await res.json()) as object) });
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(answers.filter((a) => a.status === 200)).toEqual([]);
      expect(settled).toBe(false);
      await new Promise((resolve) => holder.close(resolve));
      released = true;
      await started;
      const ready = await fetch(`http://127.0.0.1:${held}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toEqual({
        status: 200,
        body: { status: 'ok' },
      });
      expect(readFileSync(pipeline.running('gateway')!.logFile, 'utf8')).toContain(
        'public port taken; trying again',
      );
    } finally {
      if (!released) await new Promise((resolve) => holder.close(resolve));
      await started.catch(() => undefined);
      if (pipeline.running('gateway')) await pipeline.stop('gateway');
    }
  });

  // A stop while it waits for a taken port is a stop like any other: its shutdown runs, it exits 0,
  // and nothing logs an error (before: the wait's rejection escaped as an uncaught exception).
  it('gateway: a SIGTERM while its public port is taken stops it cleanly', async () => {
    // Its ops port is the pipeline's gateway's: that one stops first (the tests above stop it too).
    if (pipeline.running('gateway')) await pipeline.stop('gateway');
    const held = await freePort();
    const holder: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(held, '127.0.0.1', resolve));
    const logFile = join(pipeline.logDir, 'gateway.log');
    const from = statSync(logFile).size;
    const started = pipeline.start('gateway', { HTTP_PORT: String(held) });
    try {
      const since = () => readFileSync(logFile, 'utf8').slice(from);
      let pid: number | undefined;
      while (pid === undefined) {
        const line = since()
          .split('\n')
          .find((l) => l.includes('public port taken; trying again'));
        if (line) pid = (JSON.parse(line) as { pid: number }).pid;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      process.kill(pid, 'SIGTERM');
      await expect(started).rejects.toThrow(/exited \(code 0, signal null\) before it was ready/);
      const lines = since()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: string; msg: string });
      expect(lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
      expect(lines.map((l) => l.msg)).toContain('shutdown complete');
    } finally {
      await started.catch(() => undefined);
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

// The README's metrics table: | service | `name` | type | `label`, ... | what |
function readmeMetrics(): { services: AppName[]; name: string; type: string; labels: string[] }[] {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Metrics and dashboard'));
  const table = section.slice(0, section.indexOf('\n## '));
  const rows = [];
  for (const m of table.matchAll(/^\| ([^|]+) \| `(tributary_[a-z_]+)` \| (\w+) \| ([^|]*) \|/gm)) {
    const who = (m[1] as string).trim();
    rows.push({
      services: who === 'all five' ? APPS : (who.split(', ') as AppName[]),
      name: m[2] as string,
      type: m[3] as string,
      labels: [...(m[4] as string).matchAll(/`(\w+)`/g)].map((l) => l[1] as string),
    });
  }
  return rows;
}
