import { describe, expect, it } from 'vitest';
import { PermanentFailure, classifyFailure } from './classifyFailure.ts';

/** An error as pg and Node raise them: a message and a code. */
const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('classifyFailure', () => {
  it('tells what a later try clears from what fails the same way again, by the error and its causes', () => {
    const cases: [unknown, string][] = [
      [withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:55432'), 'transient'],
      [withCode('57P01', 'terminating connection due to administrator command'), 'transient'],
      [withCode('08006'), 'transient'],
      [withCode('40001', 'could not serialize access'), 'transient'],
      [withCode('40P01', 'deadlock detected'), 'transient'],
      [withCode('55P03', 'lock not available'), 'transient'],
      [withCode('57014', 'canceling statement due to statement timeout'), 'transient'],
      // A session PostgreSQL ended for waiting inside a transaction (its process was slow, not the input).
      [withCode('25P03', 'terminating connection due to idle-in-transaction timeout'), 'transient'],
      [new Error('Connection terminated unexpectedly'), 'transient'],
      [new Error('timeout exceeded when trying to connect'), 'transient'],
      [
        Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError', retriable: true }),
        'transient',
      ],
      [
        new Error('gave up', {
          cause: Object.assign(new Error('broker down'), { name: 'KafkaJSConnectionError', retriable: true }),
        }),
        'transient',
      ],
      [withCode('23505', 'duplicate key value violates unique constraint'), 'deterministic'],
      [withCode('23514', 'violates check constraint'), 'deterministic'],
      [withCode('22003', 'numeric field overflow'), 'deterministic'],
      [withCode('42703', 'column "x" does not exist'), 'deterministic'],
      [new TypeError("Cannot read properties of undefined (reading 'hash')"), 'deterministic'],
      [Object.assign(new Error('reads transactions the block lacks'), { retryable: false }), 'deterministic'],
      [Object.assign(new Error('the node cannot trace it yet'), { retryable: true }), 'transient'],
      [withCode('XX001', 'invalid page in block'), 'unknown'],
      [new Error('something odd'), 'unknown'],
    ];
    expect(cases.map(([err]) => classifyFailure(err).kind)).toEqual(cases.map(([, kind]) => kind));
  });

  it('says why in words, with the SQLSTATE and its name', () => {
    expect(classifyFailure(withCode('23505', 'duplicate key')).why).toBe(
      'PostgreSQL 23505 (unique_violation): duplicate key',
    );
    const failure = new PermanentFailure(classifyFailure(withCode('23514', 'check')), 1, new Error('x'));
    expect([failure.message, failure.retryable]).toEqual([
      'failed for good: PostgreSQL 23514 (check_violation): check',
      false,
    ]);
  });
});
