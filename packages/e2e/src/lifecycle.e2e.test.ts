import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import type { AppName } from './harness/startService.ts';

const APPS: AppName[] = ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'];
const DEADLINE_MS = 10_000;

// Every deployable, as its own process: it becomes ready, serves its health and metrics, and on
// SIGTERM stops taking work, drains and exits 0 well within its shutdown deadline.
describe('service lifecycle', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({
      name: 'life',
      apps: APPS,
      env: Object.fromEntries(APPS.map((a) => [a, { SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS) }])),
    });
  });
  afterAll(async () => {
    await pipeline?.close();
  });

  it('exports every series the Grafana dashboard queries (infra/grafana/dashboards/tributary.json)', async () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../../../infra/grafana/dashboards/tributary.json', import.meta.url), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    // Metric names in the queries: identifiers of the project's and the services' families, with
    // a histogram's _bucket / _count / _sum folded to the family.
    const wanted = new Set<string>();
    for (const panel of dashboard.panels)
      for (const t of panel.targets)
        for (const m of t.expr.matchAll(/\b((?:tributary|follower|projector|http)_[a-z_]+)\b/g))
          wanted.add((m[1] as string).replace(/_(bucket|count|sum)$/, ''));
    expect(wanted.size).toBeGreaterThan(15);
    const exported = new Set<string>();
    for (const app of APPS) {
      const text = await (await fetch(`http://127.0.0.1:${pipeline.running(app)!.port}/metrics`)).text();
      for (const m of text.matchAll(/^# TYPE (\S+) /gm)) exported.add(m[1] as string);
    }
    expect([...wanted].filter((name) => !exported.has(name))).toEqual([]);
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
});
