import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createOutageLog } from './createOutageLog.ts';

function captured() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('createOutageLog', () => {
  it('logs the start of an outage once and its end with the count and duration', () => {
    const { logger, lines } = captured();
    let t = 1_000;
    const outage = createOutageLog(logger, 'redis', () => t);
    outage.ok();
    for (let i = 0; i < 5; i++) outage.failed(new Error('ECONNREFUSED'));
    expect(outage.down()).toBe(true);
    t = 4_500;
    outage.ok();
    outage.ok();
    expect(outage.down()).toBe(false);
    expect(lines.map((l) => [l['msg'], l['failures'], l['outageMs']])).toEqual([
      ['redis failing: retrying with backoff', undefined, undefined],
      ['redis back', 5, 3_500],
    ]);
    expect((lines[0]?.['err'] as { message: string }).message).toBe('ECONNREFUSED');
  });
});
