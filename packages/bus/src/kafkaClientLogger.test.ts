import { describe, expect, it } from 'vitest';
import { kafkaClientLogger } from './kafkaClientLogger.ts';

describe('kafkaClientLogger', () => {
  it('hands connectivity errors to the outage (debug only) and passes other errors through', () => {
    const lines: string[] = [];
    const capture = (level: string) => (_obj: object, msg: string) => void lines.push(`${level} ${msg}`);
    const logger = { error: capture('error'), warn: capture('warn'), info: capture('info'), debug: () => {} };
    const failures: string[] = [];
    const kafkaLog = kafkaClientLogger(logger, { failed: (err) => failures.push((err as Error).message) });

    for (let i = 0; i < 20; i++) {
      kafkaLog.error({ stack: 'Error: connect ECONNREFUSED 127.0.0.1:9092' }, 'Connection error');
      kafkaLog.error(
        { retryCount: i },
        'Failed to connect to seed broker, trying another broker from the list',
      );
    }
    kafkaLog.error({ groupId: 'g' }, 'Crash: KafkaJSNonRetriableError: something else');
    expect(failures).toHaveLength(40);
    expect(lines).toEqual(['error Crash: KafkaJSNonRetriableError: something else']);
  });
});
