import { createLogger } from '@tributary/runtime';
import { describe, expect, it } from 'vitest';
import { createOutage } from './createOutage.ts';
import { kafkaClientLogger } from './kafkaClientLogger.ts';

describe('kafkaClientLogger', () => {
  it('turns a broker restart into one outage line and passes other errors through', () => {
    const lines: string[] = [];
    const logger = createLogger('kafka-log-test', 'debug');
    const capture = (level: string) => (_obj: object, msg: string) => lines.push(`${level} ${msg}`);
    Object.assign(logger, {
      error: capture('error'),
      warn: capture('warn'),
      info: capture('info'),
      debug: () => {},
    });
    const outage = createOutage({ what: 'kafka', logger });
    const kafkaLog = kafkaClientLogger(logger, outage);

    for (let i = 0; i < 20; i++) {
      kafkaLog.error({ stack: 'Error: connect ECONNREFUSED 127.0.0.1:9092' }, 'Connection error');
      kafkaLog.error(
        { retryCount: i },
        'Failed to connect to seed broker, trying another broker from the list',
      );
    }
    expect(() => outage.check()).toThrow(/kafka unavailable/);
    kafkaLog.error({ groupId: 'g' }, 'Crash: KafkaJSNonRetriableError: something else');
    outage.recovered();
    expect(lines).toEqual([
      'warn kafka failing: retrying with backoff',
      'error Crash: KafkaJSNonRetriableError: something else',
      'info kafka back',
    ]);
  });
});
