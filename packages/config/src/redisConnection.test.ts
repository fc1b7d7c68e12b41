import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { redisEnv } from './commonEnv.ts';
import { EnvError, parseEnv } from './parseEnv.ts';
import { redisConnection } from './redisConnection.ts';

const schema = z.object(redisEnv);
const connectionOf = (env: Record<string, string>) => {
  const { reconnectOnError: _, ...rest } = redisConnection(parseEnv(schema, env));
  return rest;
};

describe('redisConnection', () => {
  it('is REDIS_URL as it is when no sentinel is named', () => {
    expect(connectionOf({})).toEqual({ url: 'redis://127.0.0.1:56379' });
    expect(connectionOf({ REDIS_URL: 'rediss://:pw@cache.internal:6380/2' })).toEqual({
      url: 'rediss://:pw@cache.internal:6380/2',
    });
  });

  it('asks the sentinels for the named master, with the URL giving user, password and database', () => {
    expect(
      connectionOf({
        REDIS_URL: 'redis://app:p%40ss@ignored:1/3',
        REDIS_SENTINELS: 's1:26379, [::1]:26380,10.0.0.3:26381',
        REDIS_SENTINEL_NAME: 'tributary',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      }),
    ).toEqual({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
        { host: '10.0.0.3', port: 26381 },
      ],
      name: 'tributary',
      username: 'app',
      password: 'p@ss',
      db: 3,
      sentinelPassword: 'sentinel-secret',
      failoverDetector: true,
    });
    expect(connectionOf({ REDIS_SENTINELS: '127.0.0.1:26379' })).toEqual({
      sentinels: [{ host: '127.0.0.1', port: 26379 }],
      name: 'mymaster',
      failoverDetector: true,
    });
  });

  it('sends again a command a demoted master refused, and nothing else', () => {
    const c = redisConnection(parseEnv(schema, { REDIS_SENTINELS: 'a:1' }));
    expect(c.reconnectOnError?.(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(c.reconnectOnError?.(new Error('ERR unknown command'))).toBe(false);
  });

  it('refuses sentinels that are not host:port, and TLS through Sentinel', () => {
    for (const bad of ['s1', 's1:0', 's1:65536', 's1:x', 's1:26379,:1']) {
      expect(() => parseEnv(schema, { REDIS_SENTINELS: bad }), bad).toThrow(/REDIS_SENTINELS/);
    }
    expect(() => connectionOf({ REDIS_URL: 'rediss://h:1', REDIS_SENTINELS: 'a:1' })).toThrow(EnvError);
    expect(() => connectionOf({ REDIS_URL: 'redis://h:1/x', REDIS_SENTINELS: 'a:1' })).toThrow(/database/);
  });
});
