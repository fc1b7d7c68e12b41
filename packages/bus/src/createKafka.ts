import { Kafka, type LogEntry, logLevel } from 'kafkajs';
import { inflateOnEventLoop } from './inflateOnEventLoop.ts';

interface LikeLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/**
 * One kafkajs client per process; kafkajs' own log lines go to the service logger (warn and up), and
 * gzip batches are inflated on the event loop (inflateOnEventLoop).
 */
export function createKafka(opts: { brokers: string[]; clientId: string; logger?: LikeLogger }): Kafka {
  inflateOnEventLoop();
  const logger = opts.logger;
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 200, retries: 8 },
    ...(logger
      ? {
          logCreator:
            () =>
            ({ level, log }: LogEntry) => {
              const { message, ...rest } = log;
              const fields = { kafka: rest };
              if (level === logLevel.ERROR) logger.error(fields, message);
              else if (level === logLevel.WARN) logger.warn(fields, message);
              else if (level === logLevel.INFO) logger.info(fields, message);
              else logger.debug(fields, message);
            },
        }
      : {}),
  });
}
