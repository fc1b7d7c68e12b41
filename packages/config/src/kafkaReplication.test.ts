import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { kafkaTopicsEnv } from './commonEnv.ts';
import { kafkaReplication } from './kafkaReplication.ts';
import { EnvError, parseEnv } from './parseEnv.ts';

const replicationOf = (env: Record<string, string>) =>
  kafkaReplication(parseEnv(z.object(kafkaTopicsEnv), env));

describe('kafkaReplication', () => {
  it("is a single broker's 1 and 1 by default, and what is set", () => {
    expect(replicationOf({})).toEqual({ factor: 1, minInsync: 1 });
    expect(replicationOf({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' })).toEqual({
      factor: 3,
      minInsync: 2,
    });
  });

  it('refuses more in-sync copies than copies, and less than one of either', () => {
    expect(() => replicationOf({ KAFKA_MIN_INSYNC_REPLICAS: '2' })).toThrow(EnvError);
    expect(() => replicationOf({ KAFKA_MIN_INSYNC_REPLICAS: '2' })).toThrow(
      /exceeds KAFKA_REPLICATION_FACTOR/,
    );
    expect(() => replicationOf({ KAFKA_REPLICATION_FACTOR: '0' })).toThrow(/KAFKA_REPLICATION_FACTOR/);
  });
});
