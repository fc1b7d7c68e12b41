import { EnvError } from './parseEnv.ts';

/** The parsed Redis variables (`redisEnv`). */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_SENTINELS: readonly { host: string; port: number }[];
  REDIS_SENTINEL_NAME: string;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
}

/**
 * Options for every Redis client of a service: BullMQ's `connection` takes them as they are; an
 * ioredis client is `new Redis(url, rest)` with a `url`, `new Redis(rest)` without. Callers add
 * their own per-client options (`maxRetriesPerRequest`, `enableOfflineQueue`) by spreading.
 */
export interface RedisConnectionOptions {
  /** Redis alone: the URL as ioredis reads it. */
  url?: string;
  sentinels?: { host: string; port: number }[];
  name?: string;
  username?: string;
  password?: string;
  db?: number;
  sentinelPassword?: string;
  failoverDetector?: boolean;
  reconnectOnError?: (err: Error) => boolean | 1 | 2;
}

/**
 * The one way a Redis connection is described. Without sentinels: REDIS_URL, as before. With
 * them: the master named REDIS_SENTINEL_NAME, found through the sentinels, with REDIS_URL's user,
 * password and database (its host and port are not used). A failover is followed: the client
 * watches the sentinels' `+switch-master` and reconnects to the new master; a command that reached
 * a demoted master (READONLY) is sent again after that reconnection (it was not applied).
 */
export function redisConnection(env: RedisEnv): RedisConnectionOptions {
  if (env.REDIS_SENTINELS.length === 0) return { url: env.REDIS_URL };
  const url = new URL(env.REDIS_URL);
  if (url.protocol !== 'redis:') {
    throw new EnvError(
      `invalid environment:\n  REDIS_URL: with REDIS_SENTINELS it must be redis://[user:password@]any-host[/db] (TLS through Sentinel is not supported)`,
    );
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) {
    throw new EnvError(`invalid environment:\n  REDIS_URL: "/${db}" is not a database number`);
  }
  return {
    sentinels: env.REDIS_SENTINELS.map((s) => ({ host: s.host, port: s.port })),
    name: env.REDIS_SENTINEL_NAME,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== '' ? { db: Number(db) } : {}),
    ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    failoverDetector: true,
    reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
  };
}
