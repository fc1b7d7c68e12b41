import { bootService, serveOps } from '@tributary/runtime';
import { loadEnv } from './env.ts';

// Composition root. The matching/delivery stages are not built yet: the service starts,
// reports ready and idles until it is told to stop.
const env = loadEnv();
const service = bootService({ name: 'webhook-sender', logLevel: env.LOG_LEVEL, shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS });
await serveOps(service, env.OPS_HOST, env.OPS_PORT);
service.logger.info('ready');
