import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import {
  chainsEnv,
  databaseEnv,
  databaseTimeoutsEnv,
  envInt,
  envPort,
  kafkaEnv,
  kafkaRetentionEnv,
  kafkaTopicsEnv,
  logEnv,
  opsEnv,
  parseEnv,
  redisEnv,
  webhookQueueEnv,
  webhookUrlEnv,
} from '@tributary/config';
import { z } from 'zod';
import { HTTP_LIMIT_DEFAULTS, type HttpLimits } from './app/httpLimits.ts';
import { streamLimitsEnv } from './streams/streamLimitsEnv.ts';

const DAY_MS = 86_400_000;

/** Environment of the stream interface. */
const streamsEnv = {
  ...kafkaEnv,
  ...kafkaTopicsEnv,
  KAFKA_CHANGES_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_CHANGES_RETENTION_HOURS,
  ...redisEnv,
  ...webhookQueueEnv,
  ...webhookUrlEnv,
  TEST_WEBHOOK_TIMEOUT_MS: envInt(10_000, 100),
  ...streamLimitsEnv,
  /**
   * How long the webhook secret a POST /settings replaces keeps signing (0: not at all, for a
   * leaked secret): retries in flight and receivers that switch later still verify.
   */
  SECRET_ROTATION_WINDOW_MS: envInt(DAY_MS, 0),
};

const DEV_ENVIRONMENTS = new Set(['development', 'test']);

/** Largest accepted request body: stream configurations with their ABIs, and address lists (50,000 addresses are about 2.3 MB). */
const DEFAULT_BODY_LIMIT_BYTES = 8 * 1_048_576;

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** express's `trust proxy`: "" or "false" (none), a number of hops, or "loopback", addresses and subnets, comma-separated. */
const trustProxy = z
  .string()
  .default('')
  .transform((raw, ctx): false | number | string => {
    const value = raw.trim();
    if (value === '' || value === 'false') return false;
    if (/^\d+$/.test(value)) return Number(value);
    for (const item of value.split(',').map((x) => x.trim())) {
      const [address = '', bits, ...rest] = item.split('/');
      const family = isIP(address);
      const maxBits = family === 4 ? 32 : 128;
      const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
      if (!PROXY_NAMES.has(item) && (family === 0 || !bitsOk || rest.length > 0)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${item}" is not an address, a subnet or loopback/linklocal/uniquelocal`,
        });
        return z.NEVER;
      }
    }
    return value;
  });

export const envSchema = z
  .object({
    ...logEnv,
    ...databaseEnv,
    // Its queries are short index range scans (milliseconds) and the stream writes (50,000
    // addresses in about a second): a query past 10 s is stuck, and ends well before a client gives up.
    ...databaseTimeoutsEnv({ statementMs: 10_000, idleInTransactionMs: 10_000 }),
    ...redisEnv,
    ...streamsEnv,
    NODE_ENV: z.string().optional(),
    // /metrics and the detailed /readyz: on loopback unless said otherwise, never on the public port.
    ...opsEnv(9106),
    HTTP_PORT: envPort(8080),
    HTTP_HOST: z.string().min(1).default('127.0.0.1'),
    HTTP_HEADERS_TIMEOUT_MS: envInt(HTTP_LIMIT_DEFAULTS.headersTimeoutMs, 1),
    HTTP_REQUEST_TIMEOUT_MS: envInt(HTTP_LIMIT_DEFAULTS.requestTimeoutMs, 0),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: envInt(HTTP_LIMIT_DEFAULTS.keepAliveTimeoutMs, 0),
    HTTP_MAX_CONNECTIONS: envInt(HTTP_LIMIT_DEFAULTS.maxConnections, 0),
    /** Signs pagination cursors; every gateway behind one load balancer needs the same value. */
    CURSOR_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Requests per second per API key; 0 turns rate limiting off. */
    RATE_LIMIT_PER_SECOND: envInt(25, 0),
    ...chainsEnv,
    /** How long the chains the deployment follows (follower_checkpoints) are kept in process; 0: never. */
    FOLLOWED_CHAINS_CACHE_MS: envInt(10_000, 0),
    BODY_LIMIT_BYTES: envInt(DEFAULT_BODY_LIMIT_BYTES, 1024),
    /** How long a verified API key is trusted before it is looked up again (revocation delay). */
    API_KEY_CACHE_MS: envInt(5_000, 0),
    /** How long a key found unknown or revoked is remembered so: its repeats cost no query. */
    INVALID_API_KEY_CACHE_MS: envInt(30_000, 0),
    /** Requests with an unknown or revoked key per client address per minute, then 429; 0: no bound. */
    AUTH_FAILURES_PER_MINUTE: envInt(30, 0),
    /** The proxies that may name the client (X-Forwarded-For): none, a hop count, or addresses and subnets. */
    TRUST_PROXY: trustProxy,
    /** How long token metadata (name, symbol, decimals, logo, flags) is kept in process; 0: never. */
    TOKEN_METADATA_CACHE_MS: envInt(60_000, 0),
    /** Spacing in blocks of the stored per-wallet transfer checkpoints behind range totals. */
    TRANSFER_CHECKPOINT_BLOCKS: envInt(256, 1),
  })
  .superRefine((env, ctx) => {
    if (env.HTTP_REQUEST_TIMEOUT_MS > 0 && env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HTTP_HEADERS_TIMEOUT_MS'],
        message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)',
      });
    }
    if (env.CURSOR_SECRET === undefined && !DEV_ENVIRONMENTS.has(env.NODE_ENV ?? '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['CURSOR_SECRET'],
        message: 'required unless NODE_ENV is development or test (pagination cursors are signed with it)',
      });
    }
  })
  .transform((env) => ({
    ...env,
    cursorSecretDerived: env.CURSOR_SECRET === undefined,
    httpLimits: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    } satisfies HttpLimits,
    // Development only: derived from the database URL so that local gateways agree with each other.
    CURSOR_SECRET:
      env.CURSOR_SECRET ??
      createHash('sha256').update(`tributary-dev-cursor-secret:${env.DATABASE_URL}`).digest('base64url'),
  }));
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}

/** What createApp tunes, from the environment (tests take the defaults from here too). */
export function appSettingsOf(env: Env) {
  return {
    // Counted under the deployment's Redis prefix: deployments (and test stacks) sharing a Redis
    // never spend each other's budgets.
    rateLimit: {
      limit: env.RATE_LIMIT_PER_SECOND,
      windowMs: 1_000,
      keyPrefix: `${env.WEBHOOK_QUEUE_PREFIX}:ratelimit:`,
    },
    apiKeyCacheMs: env.API_KEY_CACHE_MS,
    invalidKeyCacheMs: env.INVALID_API_KEY_CACHE_MS,
    authFailures: {
      limit: env.AUTH_FAILURES_PER_MINUTE,
      windowMs: 60_000,
      keyPrefix: `${env.WEBHOOK_QUEUE_PREFIX}:authfail:`,
    },
    trustProxy: env.TRUST_PROXY,
    tokenMetadataCacheMs: env.TOKEN_METADATA_CACHE_MS,
    followedChainsCacheMs: env.FOLLOWED_CHAINS_CACHE_MS,
    transferCheckpointBlocks: env.TRANSFER_CHECKPOINT_BLOCKS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
  };
}
