import { Redis, type RedisOptions } from 'ioredis';

/**
 * An ioredis client from a service's Redis connection description (`redisConnection`: a URL, or
 * sentinels and a master name) plus this client's own options: the one way a service builds a
 * plain Redis client, whichever form the description takes.
 */
export function createRedisClient(connection: { url?: string } & RedisOptions, own: RedisOptions): Redis {
  const { url, ...options } = { ...connection, ...own };
  return url === undefined ? new Redis(options) : new Redis(url, options);
}
