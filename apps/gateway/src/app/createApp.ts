import type { ChainRegistry } from '@tributary/chains';
import type { Pool } from '@tributary/db';
import type { Health } from '@tributary/runtime';
import express, { type Express, type RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import qs from 'qs';
import { createAuthenticate } from '../auth/createAuthenticate.ts';
import { createRateLimit } from '../auth/createRateLimit.ts';
import { createWindowCounter } from '../auth/createWindowCounter.ts';
import { createCursorCodec } from '../cursor/createCursorCodec.ts';
import { createDataRouter } from '../data/createDataRouter.ts';
import { createFollowedChains } from '../data/createFollowedChains.ts';
import { createTokenMetadataCache } from '../data/createTokenMetadataCache.ts';
import { createErrorHandler, notFoundHandler } from '../errors/errorHandler.ts';
import { createDocsRouter } from '../openapi/createDocsRouter.ts';
import { createPublicHealth } from './createPublicHealth.ts';
import { rejectUnusableBody } from './rejectUnusableBody.ts';
import { createRequestContext } from './requestContext.ts';

/** Top-level paths of the stream interface; requests under them are authenticated like /api/v2.2. */
const STREAM_PATHS = ['/streams', '/history', '/stats', '/settings'] as const;

export interface AppDeps {
  pool: Pool;
  redis: Redis;
  logger: Logger;
  metrics: Registry;
  health: Health;
  chains: ChainRegistry;
  cursorSecret: string;
  /** Per API key; `limit: 0` turns it off. Counted in process too, which applies while Redis is away. */
  rateLimit: { limit: number; windowMs: number; keyPrefix: string };
  /** How long a verified key is trusted without a lookup. */
  apiKeyCacheMs: number;
  /**
   * Requests with a key found unknown or revoked, per client address: `limit` per `windowMs`,
   * then 429 without a query (`limit: 0`: no bound). Counted like the rate limit (Redis, and in process).
   */
  authFailures: { limit: number; windowMs: number; keyPrefix: string };
  /** How long a key found unknown or revoked is remembered so, its repeats costing no query. */
  invalidKeyCacheMs: number;
  /**
   * Which proxies in front may name the client (X-Forwarded-For), as express's `trust proxy`:
   * false (none), a hop count, or addresses and subnets. The client address is what failed
   * authentications are counted by.
   */
  trustProxy: false | number | string;
  /** How long the set of followed chains (follower_checkpoints) is kept in process (0: never). */
  followedChainsCacheMs: number;
  /** How long token metadata of transfer records is kept in process (0: never). */
  tokenMetadataCacheMs: number;
  /**
   * Spacing in blocks of the per-wallet transfer checkpoints that range totals of the transfers
   * endpoint count from (see walletRangeTotal).
   */
  transferCheckpointBlocks: number;
  /** Largest JSON body accepted; larger bodies get 413. */
  bodyLimitBytes: number;
  /**
   * Mount point of the stream interface. The hook receives a router mounted at the root and
   * registers full paths under STREAM_PATHS (`/streams/evm`, `/history`, `/stats`, `/settings`).
   * Requests reach it authenticated (`res.locals.account`: AuthedAccount {id, name,
   * webhookSecret, keyId}), rate limited, with `req.body` parsed from JSON, and with
   * `res.locals.requestId` set. Handlers may be async; thrown ApiErrors (BadRequestError,
   * NotFoundError, ValidationError for 422, ...) become the standard error bodies, anything else
   * a logged 500. Reply with `sendJson` to keep bigint digits exact.
   */
  mountStreams?: (router: Router) => void;
}

/** Runs a body parser except for GET and HEAD (the data interface's hot path has no body). */
function withBody(parse: RequestHandler): RequestHandler {
  return (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : parse(req, res, next));
}

/** Builds the gateway's express app; `main.ts` alone listens (tests use port 0). */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);
  // qs with explicit limits: bracket (`a[]=`), repeated (`a=&a=`) and indexed (`a[0]=`) arrays.
  app.set('query parser', (str: string) =>
    qs.parse(str, { arrayLimit: 100, depth: 2, parameterLimit: 1000, allowPrototypes: false }),
  );

  app.use(createRequestContext({ logger: deps.logger, metrics: deps.metrics }));
  app.use(createPublicHealth(deps.health));

  // The interface's own description needs no key.
  app.use(createDocsRouter());

  const guard: RequestHandler[] = [
    createAuthenticate({
      pool: deps.pool,
      cacheMs: deps.apiKeyCacheMs,
      refusedCacheMs: deps.invalidKeyCacheMs,
      failures: {
        limit: deps.authFailures.limit,
        counter: createWindowCounter({
          redis: deps.redis,
          logger: deps.logger,
          windowMs: deps.authFailures.windowMs,
          keyPrefix: deps.authFailures.keyPrefix,
        }),
      },
    }),
    createRateLimit({
      limit: deps.rateLimit.limit,
      counter: createWindowCounter({
        redis: deps.redis,
        logger: deps.logger,
        windowMs: deps.rateLimit.windowMs,
        keyPrefix: deps.rateLimit.keyPrefix,
      }),
    }),
    // Bodies are parsed only for authenticated callers, and only where a method carries one.
    withBody(express.json({ limit: deps.bodyLimitBytes })),
    rejectUnusableBody,
  ];

  const cursors = createCursorCodec(deps.cursorSecret);
  const tokenMetadata = createTokenMetadataCache({
    pool: deps.pool,
    ttlMs: deps.tokenMetadataCacheMs,
  });
  app.use(
    '/api/v2.2',
    ...guard,
    createDataRouter({
      pool: deps.pool,
      chains: deps.chains,
      followedChains: createFollowedChains({
        pool: deps.pool,
        cacheMs: deps.followedChainsCacheMs,
        logger: deps.logger,
      }),
      cursors,
      tokenMetadata,
      transferCheckpointBlocks: deps.transferCheckpointBlocks,
    }),
  );

  if (deps.mountStreams) {
    const streams = Router();
    deps.mountStreams(streams);
    app.use([...STREAM_PATHS], ...guard);
    app.use(streams);
  }

  app.use(notFoundHandler);
  app.use(createErrorHandler(deps.logger));
  return app;
}
