import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON lines on stdout, one logger per service; children add request or block ids. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
