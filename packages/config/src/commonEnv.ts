import { type Chain, parseExtraChains } from '@tributary/chains';
import { z } from 'zod';
import { envBoolean, envInt, envList, envPort } from './parseEnv.ts';

/** Variables every service understands; the same names are used by infra/ and docker-compose.yml. */
export const logEnv = {
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  SHUTDOWN_DEADLINE_MS: envInt(10_000, 100),
};

export const databaseEnv = {
  DATABASE_URL: z.string().url().default('postgres://tributary@127.0.0.1:55432/tributary'),
  DATABASE_POOL_SIZE: envInt(10, 1),
};

/**
 * PostgreSQL's limits on each session of the service's pool, with defaults that fit what the
 * service does (see createPool's PoolTimeouts). 0: no limit.
 */
export const databaseTimeoutsEnv = (defaults: { statementMs: number; idleInTransactionMs: number }) => ({
  DATABASE_STATEMENT_TIMEOUT_MS: envInt(defaults.statementMs, 0),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: envInt(defaults.idleInTransactionMs, 0),
});

/**
 * Redis, alone (REDIS_URL) or behind Sentinel (REDIS_SENTINELS): `redisConnection` turns these
 * into the options every client (ioredis, BullMQ) is built from.
 */
export const redisEnv = {
  REDIS_URL: z.string().url().default('redis://127.0.0.1:56379'),
  /** "host:port,host:port": ask these sentinels for the master; REDIS_URL then gives only user, password and database. */
  REDIS_SENTINELS: envList('').transform((list, ctx) => {
    const out: { host: string; port: number }[] = [];
    for (const item of list) {
      const address = parseHostPort(item);
      if (!address) {
        ctx.addIssue({ code: 'custom', message: `"${item}" is not host:port` });
        return z.NEVER;
      }
      out.push(address);
    }
    return out;
  }),
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> ...`). */
  REDIS_SENTINEL_NAME: z.string().min(1).default('mymaster'),
  /** The sentinels' own password (their `requirepass`), when they have one. */
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
};

/** "host:port", "[v6]:port"; undefined when it is not that. */
function parseHostPort(item: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(item);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65_535) return undefined;
  return { host: (m[1] ?? m[2]) as string, port };
}

export const kafkaEnv = {
  KAFKA_BROKERS: envList('127.0.0.1:59092'),
  KAFKA_CLIENT_ID: z.string().min(1).default('tributary'),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
};

/**
 * How the topics a service creates are replicated: 1 and 1 fit a single broker; a cluster of three
 * takes 3 and 2 (a write is acknowledged by two brokers, and one broker may be lost).
 */
export const kafkaTopicsEnv = {
  KAFKA_REPLICATION_FACTOR: envInt(1, 1),
  KAFKA_MIN_INSYNC_REPLICAS: envInt(1, 1),
};

/** The consumer groups of the block topic (projector, stream-matcher). */
export const kafkaGroupEnv = {
  /**
   * How long the group waits for a member that stopped heartbeating before its partitions go to a
   * standby. Brokers refuse less than their group.min.session.timeout.ms (6 s by default).
   */
  KAFKA_SESSION_TIMEOUT_MS: envInt(30_000, 6_000),
};

/**
 * How long each topic keeps its messages (`retention.ms`): set on the topic by each service that
 * uses it, when it creates the topic and at every start on the existing one, so give every service
 * the same values. Each service reads those of the topics it uses (README, Operations: sizing).
 */
export const kafkaRetentionEnv = {
  /** The block topic: an outage longer than this costs the follower re-publishing the blocks. */
  KAFKA_RETENTION_HOURS: envInt(168, 1),
  /** Stream change events: a fast path only (matchers read the changes from PostgreSQL). */
  KAFKA_CHANGES_RETENTION_HOURS: envInt(24, 1),
  /** Dead letters: what `admin dead-letters list` can still show. */
  KAFKA_DEAD_LETTER_RETENTION_HOURS: envInt(720, 1),
};

export const rpcEnv = {
  RPC_URL: z.string().url().default('http://127.0.0.1:58545'),
  CHAIN_ID: z.coerce.number().int().positive().default(31337),
};

/**
 * Chains beyond the spec's table, or new settings for one of its chains:
 * "name:0xhex[:confirmations[:blockTimeMs]],...". Every service that resolves chains reads the same value.
 */
export const chainsEnv = {
  EXTRA_CHAINS: z
    .string()
    .default('')
    .transform((s, ctx): Chain[] => {
      try {
        return parseExtraChains(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
};

export const opsEnv = (defaultPort: number) => ({
  OPS_PORT: envPort(defaultPort),
  OPS_HOST: z.string().default('127.0.0.1'),
});

/** The webhook delivery queue, shared by the gateway (replays, resumes), the matcher and the sender. */
export const webhookQueueEnv = {
  /** The deployment's Redis key prefix (BullMQ's queue, the gateway's rate-limit counters): every service of one deployment uses the same. */
  WEBHOOK_QUEUE_PREFIX: z.string().min(1).default('tributary'),
};

/** Where webhooks may go: read by the gateway (test webhooks) and the sender (deliveries) alike. */
export const webhookUrlEnv = {
  /** Deliver to URLs resolving to private, loopback or link-local addresses (tests, the local devnet). */
  ALLOW_PRIVATE_WEBHOOK_URLS: envBoolean(false),
  /** Refuse http: webhook URLs, at stream create and update and at delivery. */
  WEBHOOK_REQUIRE_HTTPS: envBoolean(false),
  /** The ports a webhook URL may name ("443,8443"; a URL naming none has its scheme's); empty: any. */
  WEBHOOK_ALLOWED_PORTS: envList('').transform((list, ctx) => {
    const ports = list.map(Number);
    if (ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65_535)) {
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of ports (1-65535)' });
      return z.NEVER;
    }
    return ports;
  }),
};

/** The nodes of more chains than CHAIN_ID's: "chainId=url,chainId=url" (decimal ids). */
export const extraRpcUrlsEnv = {
  EXTRA_RPC_URLS: z
    .string()
    .default('')
    .transform((s, ctx) => {
      const out = new Map<number, string>();
      for (const part of s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)) {
        const m = /^(\d+)=(https?:\/\/\S+)$/.exec(part);
        if (!m) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not chainId=url` });
          return z.NEVER;
        }
        out.set(Number(m[1]), m[2] as string);
      }
      return out;
    }),
};
