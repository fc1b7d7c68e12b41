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
