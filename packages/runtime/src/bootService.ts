import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type Health, createHealth } from './createHealth.ts';
import { createLogger } from './createLogger.ts';
import { createMetrics } from './createMetrics.ts';
import { createOutageLog } from './createOutageLog.ts';
import { memoryAllocator } from './memoryAllocator.ts';
import { retryUntilDone } from './retryUntilDone.ts';
import { type Shutdown, createShutdown } from './createShutdown.ts';
import { type OpsServer, startOpsServer } from './startOpsServer.ts';

export interface Service {
  logger: Logger;
  metrics: Registry;
  health: Health;
  shutdown: Shutdown;
  /**
   * Runs a start-up step that needs a server (PostgreSQL, Kafka, Redis) until it succeeds, with
   * backoff and one log line per outage, instead of crashing a service started while that server
   * is away; gives up only when the service is asked to stop. Serve the ops endpoints first, so
   * /readyz says what is missing meanwhile.
   */
  untilUp<T>(what: string, step: () => Promise<T>): Promise<T>;
}

/**
 * The parts every service's composition root starts with: a logger, a metrics registry, a
 * readiness registry and a shutdown registry with a deadline, wired to SIGTERM/SIGINT, unhandled
 * rejections and uncaught exceptions (a service reports its own fatal errors with `shutdown.fail`).
 * Readiness flips to "draining" as soon as shutdown starts.
 */
export function bootService(opts: { name: string; logLevel: string; shutdownDeadlineMs: number }): Service {
  const logger = createLogger(opts.name, opts.logLevel);
  logger.info({ node: process.version, allocator: memoryAllocator() }, 'starting');
  const metrics = createMetrics(opts.name);
  const health = createHealth();
  const shutdown = createShutdown({
    logger,
    deadlineMs: opts.shutdownDeadlineMs,
    onStart: () => health.setDraining(),
  });
  shutdown.installSignalHandlers();
  // Whatever the fault, the process leaves through the shutdown (steps, deadline, an exit code that
  // tells the supervisor a restart can help) rather than running on in an unknown state.
  process.on('unhandledRejection', (reason) => shutdown.fail('unhandled rejection', reason));
  process.on('uncaughtException', (err) => shutdown.fail('uncaught exception', err));
  const untilUp = <T>(what: string, step: () => Promise<T>) =>
    // Start-up steps only wait for their servers (a table a migration has not made yet included).
    retryUntilDone(step, { outage: createOutageLog(logger, what), signal: shutdown.signal, classify: false });
  return { logger, metrics, health, shutdown, untilUp };
}

/** Serves /healthz, /readyz and /metrics and registers its close as the last intake step. */
export async function serveOps(service: Service, host: string, port: number): Promise<OpsServer> {
  const ops = await startOpsServer({ host, port, health: service.health, metrics: service.metrics });
  // Registered first, so closed last within "intake": /readyz answers "draining" while intake stops.
  service.shutdown.register('ops-server', 'close', () => ops.close());
  service.logger.info({ host, port: ops.port }, 'ops endpoints listening');
  return ops;
}
