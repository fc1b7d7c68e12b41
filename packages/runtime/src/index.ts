export { createLogger, type Logger } from './createLogger.ts';
export { Counter, Gauge, Histogram, createMetrics, type Registry } from './createMetrics.ts';
export { createHealth, type Check, type Health, type HealthReport } from './createHealth.ts';
export { handleOpsRequest } from './opsHandlers.ts';
export { startOpsServer, type OpsServer } from './startOpsServer.ts';
export { EXIT_CODES, createShutdown, type Phase, type Shutdown } from './createShutdown.ts';
export { sleep } from './sleep.ts';
export { bootService, serveOps, type Service } from './bootService.ts';
