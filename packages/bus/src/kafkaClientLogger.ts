interface LikeLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

// kafkajs logs every failed connection, retry and coordinator move at error level: a broker
// restart makes hundreds of lines. Those become one outage line (and debug); the rest pass.
const CONNECTIVITY =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection error|Connection timeout|Closed connection|connect to (seed )?broker|not the correct coordinator|coordinator is (loading|not available)|leadership election|no leader|socket hang up/i;

/** The logger handed to createKafka: connectivity errors go to `outage`, once per outage. */
export function kafkaClientLogger(logger: LikeLogger, outage: { failed(err: unknown): void }) {
  const isConnectivity = (obj: object, msg: string) =>
    CONNECTIVITY.test(msg) || CONNECTIVITY.test(JSON.stringify(obj));
  return {
    error(obj: object, msg: string) {
      if (!isConnectivity(obj, msg)) return logger.error(obj, msg);
      outage.failed(new Error(msg));
      logger.debug(obj, msg);
    },
    warn(obj: object, msg: string) {
      if (!isConnectivity(obj, msg)) return logger.warn(obj, msg);
      outage.failed(new Error(msg));
      logger.debug(obj, msg);
    },
    info: (obj: object, msg: string) => logger.info(obj, msg),
    debug: (obj: object, msg: string) => logger.debug(obj, msg),
  };
}
