import { KafkaContainer } from '@testcontainers/kafka';
import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { RedisContainer } from '@testcontainers/redis';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { ANVIL_CHAIN_ID, ANVIL_MAX_PERSISTED_STATES, ANVIL_MNEMONIC } from './anvilDefaults.ts';
import type { ServiceName, StartedServices } from './startedServices.ts';

/** Images match docker-compose.yml; Confluent's image is the one @testcontainers/kafka drives (7.9 = Kafka 3.9). */
const CONTAINER_IMAGES = {
  postgres: 'postgres:15',
  redis: 'redis:7',
  kafka: 'confluentinc/cp-kafka:7.9.1',
  anvil: 'ghcr.io/foundry-rs/foundry:v1.7.1',
} as const;

const KAFKA_CLIENT_PORT = 9093;
const ANVIL_PORT = 8545;

/** Starts one testcontainer per named service, in parallel; `stop` removes them all. */
export async function startContainers(names: readonly ServiceName[]): Promise<StartedServices> {
  const started: StartedTestContainer[] = [];
  const urls: StartedServices['urls'] = {};
  const stop = async () => {
    await Promise.allSettled(started.map((container) => container.stop()));
  };
  try {
    await Promise.all(
      names.map(async (name) => {
        switch (name) {
          case 'postgres': {
            const container = await new PostgreSqlContainer(CONTAINER_IMAGES.postgres)
              .withUsername('tributary')
              .withPassword('tributary')
              .withDatabase('tributary')
              .withCommand(['postgres', '-c', 'fsync=off', '-c', 'max_connections=300'])
              .start();
            started.push(container);
            urls.databaseUrl = container.getConnectionUri();
            return;
          }
          case 'redis': {
            const container = await new RedisContainer(CONTAINER_IMAGES.redis).start();
            started.push(container);
            urls.redisUrl = container.getConnectionUrl();
            return;
          }
          case 'kafka': {
            const container = await new KafkaContainer(CONTAINER_IMAGES.kafka)
              .withKraft()
              .withEnvironment({
                KAFKA_MESSAGE_MAX_BYTES: '67108864',
                KAFKA_REPLICA_FETCH_MAX_BYTES: '67108864',
                KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
              })
              .start();
            started.push(container);
            urls.kafkaBrokers = [`${container.getHost()}:${container.getMappedPort(KAFKA_CLIENT_PORT)}`];
            return;
          }
          case 'anvil': {
            const container = await new GenericContainer(CONTAINER_IMAGES.anvil)
              .withEntrypoint(['anvil'])
              .withCommand([
                '--host',
                '0.0.0.0',
                '--port',
                String(ANVIL_PORT),
                '--chain-id',
                String(ANVIL_CHAIN_ID),
                '--mnemonic',
                ANVIL_MNEMONIC,
                '--block-time',
                '1',
                '--max-persisted-states',
                String(ANVIL_MAX_PERSISTED_STATES),
              ])
              .withExposedPorts(ANVIL_PORT)
              .withWaitStrategy(Wait.forLogMessage(/Listening on/))
              .start();
            started.push(container);
            urls.rpcUrl = `http://${container.getHost()}:${container.getMappedPort(ANVIL_PORT)}`;
            return;
          }
          default: {
            const unknown: never = name;
            throw new Error(`unknown service ${String(unknown)}`);
          }
        }
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, stop };
}
