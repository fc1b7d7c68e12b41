import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from './createLogger.ts';
import { EXIT_CODES, HARD_DEADLINE_EXTRA_MS, createShutdown } from './createShutdown.ts';

const silent = () => createLogger('test', 'silent');

/** An exit function that records its codes and resolves on the first. */
function recordExits() {
  const codes: number[] = [];
  let resolve: (code: number) => void = () => {};
  const first = new Promise<number>((r) => {
    resolve = r;
  });
  return {
    codes,
    first,
    exit: (code: number) => {
      codes.push(code);
      resolve(code);
    },
  };
}

describe('createShutdown', () => {
  it('runs intake, then drain, then close, once, and aborts its signal first', async () => {
    const order: string[] = [];
    const shutdown = createShutdown({ logger: createLogger('test', 'silent'), deadlineMs: 1_000 });
    shutdown.register('pool', 'close', () => {
      order.push('close:pool');
    });
    shutdown.register('consumer', 'drain', async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('drain:consumer');
    });
    shutdown.register('http', 'intake', () => {
      order.push(`intake:http aborted=${shutdown.signal.aborted}`);
    });
    await Promise.all([shutdown.run('test'), shutdown.run('again')]);
    expect(order).toEqual(['intake:http aborted=true', 'drain:consumer', 'close:pool']);
  });

  it('keeps going when a step fails', async () => {
    const ran: string[] = [];
    const shutdown = createShutdown({ logger: createLogger('test', 'silent'), deadlineMs: 1_000 });
    shutdown.register('bad', 'intake', () => {
      throw new Error('boom');
    });
    shutdown.register('pool', 'close', () => {
      ran.push('pool');
    });
    await shutdown.run('test');
    expect(ran).toEqual(['pool']);
  });

  it('exits with "restart" after a fatal error, once the steps ran', async () => {
    const exits = recordExits();
    const ran: string[] = [];
    const shutdown = createShutdown({ logger: silent(), deadlineMs: 5_000, exit: exits.exit });
    shutdown.register('pool', 'close', () => {
      ran.push('pool');
    });
    shutdown.fail('consumer crashed', new Error('broker gone'));
    shutdown.fail('again', new Error('ignored'));
    expect(await exits.first).toBe(EXIT_CODES.restart);
    expect(ran).toEqual(['pool']);
    expect(shutdown.signal.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(exits.codes).toEqual([EXIT_CODES.restart]);
  });

  it('exits with "noRestart" for a fatal error a restart will not clear', async () => {
    const exits = recordExits();
    const shutdown = createShutdown({ logger: silent(), deadlineMs: 5_000, exit: exits.exit });
    shutdown.fail('bad config', new Error('no such chain'), { restartHelps: false });
    expect(await exits.first).toBe(EXIT_CODES.noRestart);
  });

  it('forces the exit at the deadline when a step hangs, keeping the fatal code', async () => {
    const exits = recordExits();
    const shutdown = createShutdown({ logger: silent(), deadlineMs: 100, exit: exits.exit });
    shutdown.register('hangs', 'drain', () => new Promise<void>(() => {}));
    const started = Date.now();
    shutdown.fail('consumer crashed', new Error('broker gone'));
    expect(await exits.first).toBe(EXIT_CODES.restart);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(exits.codes).toEqual([EXIT_CODES.restart]);
  });

  it('exits with "deadline" when a clean stop hangs, and "stepFailed" when a step of it fails', async () => {
    const hung = recordExits();
    const hanging = createShutdown({ logger: silent(), deadlineMs: 50, exit: hung.exit });
    hanging.register('hangs', 'close', () => new Promise<void>(() => {}));
    hanging.exit('SIGTERM');
    expect(await hung.first).toBe(EXIT_CODES.deadline);

    const broke = recordExits();
    const failing = createShutdown({ logger: silent(), deadlineMs: 5_000, exit: broke.exit });
    failing.register('bad', 'drain', () => {
      throw new Error('commit failed');
    });
    failing.exit('SIGTERM');
    expect(await broke.first).toBe(EXIT_CODES.stepFailed);
  });

  describe('signals', () => {
    const before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
    afterEach(() => {
      for (const sig of ['SIGTERM', 'SIGINT'] as const) {
        for (const l of process.listeners(sig)) if (!before[sig].includes(l)) process.off(sig, l);
      }
    });

    it('SIGTERM stops cleanly with 0 under the deadline; a second signal exits now with 130', async () => {
      const exits = recordExits();
      const shutdown = createShutdown({ logger: silent(), deadlineMs: 5_000, exit: exits.exit });
      let release: () => void = () => {};
      shutdown.register(
        'slow',
        'drain',
        () =>
          new Promise<void>((r) => {
            release = r;
          }),
      );
      shutdown.installSignalHandlers();
      process.emit('SIGTERM', 'SIGTERM');
      await new Promise((r) => setTimeout(r, 10));
      expect(exits.codes).toEqual([]);
      process.emit('SIGINT', 'SIGINT');
      expect(await exits.first).toBe(EXIT_CODES.interrupted);
      release();
      await new Promise((r) => setTimeout(r, 10));
      expect(exits.codes).toEqual([EXIT_CODES.interrupted]);
    });

    it('a signal after a fatal error exits now, with 130', async () => {
      const exits = recordExits();
      const shutdown = createShutdown({ logger: silent(), deadlineMs: 5_000, exit: exits.exit });
      shutdown.register('hangs', 'drain', () => new Promise<void>(() => {}));
      shutdown.installSignalHandlers();
      shutdown.fail('consumer crashed', new Error('broker gone'));
      process.emit('SIGTERM', 'SIGTERM');
      expect(await exits.first).toBe(EXIT_CODES.interrupted);
    });
  });

  it('a service process exits with "restart" within its deadline after an unhandled rejection or an uncaught exception', async () => {
    const bootService = fileURLToPath(new URL('./bootService.ts', import.meta.url));
    const run = (fault: string) =>
      new Promise<{ code: number | null; ms: number; out: string }>((resolve) => {
        const started = Date.now();
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            `import { bootService } from ${JSON.stringify(bootService)};
             const s = bootService({ name: 'fault', logLevel: 'info', shutdownDeadlineMs: 300 });
             s.shutdown.register('hangs', 'drain', () => new Promise(() => {}));
             ${fault}`,
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.once('close', (code) => resolve({ code, ms: Date.now() - started, out }));
      });
    const [rejection, exception] = await Promise.all([
      run(`Promise.reject(new Error('lost the broker'));`),
      run(`setTimeout(() => { throw new Error('bad state'); }, 10);`),
    ]);
    for (const [result, msg] of [
      [rejection, 'unhandled rejection'],
      [exception, 'uncaught exception'],
    ] as const) {
      expect(result.code).toBe(EXIT_CODES.restart);
      const lines = result.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: string; msg: string });
      expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
        'info starting',
        `fatal ${msg}`,
        'info shutdown started',
        'error shutdown deadline passed: forcing exit',
      ]);
    }
  });

  it('a service whose event loop is blocked while it stops is killed at its hard deadline, for every way out', async () => {
    const bootService = fileURLToPath(new URL('./bootService.ts', import.meta.url));
    const run = (start: string) =>
      new Promise<{ signal: NodeJS.Signals | null; err: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            `import { bootService } from ${JSON.stringify(bootService)};
             const s = bootService({ name: 'spins', logLevel: 'silent', shutdownDeadlineMs: 200 });
             // A step that never yields: the deadline's own timer can never fire.
             s.shutdown.register('spins', 'drain', async () => { await null; for (;;) {} });
             setInterval(() => {}, 1_000); // a service's servers keep it alive
             ${start}`,
          ],
          { stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
        });
        child.once('close', (_code, signal) => resolve({ signal, err }));
      });
    const results = await Promise.all([
      run(`setTimeout(() => process.kill(process.pid, 'SIGTERM'), 50);`),
      run(`s.shutdown.fail('lost the broker', new Error('gone'));`),
      run(`s.shutdown.exit('asked');`),
    ]);
    for (const result of results) {
      expect(result.signal).toBe('SIGKILL');
      const last = JSON.parse(result.err.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(last).toMatchObject({
        level: 'fatal',
        service: 'spins',
        afterMs: 200 + HARD_DEADLINE_EXTRA_MS,
      });
    }
  }, 30_000);
});
