import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, freePort, getTestSettings, uniqueName } from '@tributary/testkit';
import { describe, expect, it } from 'vitest';

const START_SERVICE = fileURLToPath(new URL('./startService.ts', import.meta.url));

/** Alive and not a zombie waiting for a reaper (PID 1 in a container may never reap it). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The environment of a plain node process (not a vitest worker). */
function withoutVitest(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('VITEST')));
}

describe('startService', { timeout: 90_000 }, () => {
  it('a service never outlives the test process that started it, even one killed with SIGKILL', async () => {
    const settings = getTestSettings();
    const db = await createTestDatabase();
    const id = uniqueName('orphan');
    const port = await freePort();
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      SHUTDOWN_DEADLINE_MS: '5000',
      DATABASE_URL: db.url,
      KAFKA_BROKERS: settings.kafkaBrokers.join(','),
      KAFKA_TOPIC_PREFIX: `${id}.`,
      KAFKA_CLIENT_ID: id,
      KAFKA_GROUP_ID: `${id}-projector`,
      OPS_PORT: String(port),
    };
    const logFile = join(tmpdir(), `${id}.log`);
    // A stand-in for a test worker: starts a projector, says its pid, then waits to be killed.
    const parent = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { startService } from ${JSON.stringify(START_SERVICE)};
         const s = await startService({ app: 'projector', port: ${port}, env: ${JSON.stringify(env)}, logFile: ${JSON.stringify(logFile)} });
         console.log('service pid', s.pid);
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: withoutVitest(process.env) },
    );
    try {
      const pid = await new Promise<number>((resolve, reject) => {
        let out = '';
        parent.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /service pid (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        parent.once('exit', (code) =>
          reject(new Error(`the parent exited (${code}) before the service was ready`)),
        );
      });
      expect(isRunning(pid)).toBe(true);

      parent.kill('SIGKILL');
      const deadline = Date.now() + 20_000;
      while (isRunning(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(isRunning(pid)).toBe(false);
      // It left through its graceful shutdown, not by a kill.
      expect(readFileSync(logFile, 'utf8')).toMatch(/"reason":"SIGTERM".*"msg":"shutdown started"/);
    } finally {
      parent.kill('SIGKILL');
      await db.drop().catch(() => {});
    }
  });
});
