import { EnvError } from './parseEnv.ts';

/**
 * How each topic a service creates is replicated (`ensureTopics`): copies of each partition, and
 * copies that must have a write before it is acknowledged (producers send with acks=-1). The parsed `kafkaTopicsEnv`, checked: more in-sync replicas than copies would refuse every
 * write, so it stops the start instead.
 */
export function kafkaReplication(env: {
  KAFKA_REPLICATION_FACTOR: number;
  KAFKA_MIN_INSYNC_REPLICAS: number;
}): { factor: number; minInsync: number } {
  if (env.KAFKA_MIN_INSYNC_REPLICAS > env.KAFKA_REPLICATION_FACTOR) {
    throw new EnvError(
      `invalid environment:\n  KAFKA_MIN_INSYNC_REPLICAS: ${env.KAFKA_MIN_INSYNC_REPLICAS} exceeds KAFKA_REPLICATION_FACTOR (${env.KAFKA_REPLICATION_FACTOR}): no write could be acknowledged`,
    );
  }
  return { factor: env.KAFKA_REPLICATION_FACTOR, minInsync: env.KAFKA_MIN_INSYNC_REPLICAS };
}
