import { createLogger } from '@tributary/runtime';
import { describe, expect, it } from 'vitest';
import { createOutage } from './createOutage.ts';

describe('createOutage', () => {
  it('logs an outage once when it starts and once when it ends, and fails readiness meanwhile', () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger('outage-test', 'debug');
    const capture = (level: number) => (_obj: object, msg: string) => lines.push({ level, msg });
    Object.assign(logger, { warn: capture(40), info: capture(30) });
    let now = 1_000;
    const outage = createOutage({ what: 'postgres', logger, now: () => now });

    expect(() => outage.check()).not.toThrow();
    for (let i = 0; i < 5; i++) outage.failed(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    now += 12_000;
    expect(() => outage.check()).toThrow(
      'postgres unavailable for 12 s (5 failures): connect ECONNREFUSED 127.0.0.1:5432',
    );
    outage.recovered();
    outage.recovered();
    expect(() => outage.check()).not.toThrow();
    expect(lines).toEqual([
      { level: 40, msg: 'postgres failing: retrying with backoff' },
      { level: 30, msg: 'postgres back' },
    ]);
  });
});
