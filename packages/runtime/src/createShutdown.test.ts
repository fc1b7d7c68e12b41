import { describe, expect, it } from 'vitest';
import { createLogger } from './createLogger.ts';
import { createShutdown } from './createShutdown.ts';

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
});
