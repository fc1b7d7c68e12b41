import { type Logger, destination, pino } from 'pino';

export type { Logger };

/**
 * Structured JSON lines on stdout, one logger per service; children add request or block ids.
 * Lines are written asynchronously (lines logged while a write is in flight go out together in
 * the next write: one syscall per burst, not per line, on busy services) and flushed when the
 * process exits.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino(
    {
      level,
      base: { service, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination({ dest: 1, sync: false }),
  );
}
