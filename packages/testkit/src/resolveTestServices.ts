import { ANVIL_CHAIN_ID } from './anvilDefaults.ts';
import { isDockerAvailable } from './isDockerAvailable.ts';
import { startContainers } from './startContainers.ts';
import { startLocalServers } from './startLocalServers.ts';
import { SERVICE_NAMES, type ServiceName, type ServiceUrls } from './startedServices.ts';
import type { ServiceSource, TestSettings } from './testSettings.ts';

export type TestServices = Omit<TestSettings, 'runId' | 'templateDatabase'>;

const ENV_NAMES: Record<ServiceName, string> = {
  postgres: 'DATABASE_URL',
  redis: 'REDIS_URL',
  kafka: 'KAFKA_BROKERS',
  anvil: 'RPC_URL',
};

/**
 * The one call that gives tests real servers. Each service comes from its env var when set
 * (DATABASE_URL, REDIS_URL, KAFKA_BROKERS, RPC_URL); the rest from testcontainers when a Docker engine
 * answers, else from infra/local/up.sh. TRIBUTARY_TESTKIT_MODE=containers|local forces the provider.
 */
export async function resolveTestServices(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ services: TestServices; stop: () => Promise<void> }> {
  const urls: ServiceUrls = {};
  const sources = {} as Record<ServiceName, ServiceSource>;
  const missing: ServiceName[] = [];
  for (const name of SERVICE_NAMES) {
    const value = env[ENV_NAMES[name]];
    if (value) {
      setUrl(urls, name, value);
      sources[name] = 'env';
    } else {
      missing.push(name);
    }
  }

  let stop = async () => {};
  if (missing.length > 0) {
    const mode = env['TRIBUTARY_TESTKIT_MODE'];
    const useContainers = mode === 'containers' || (mode !== 'local' && (await isDockerAvailable(env)));
    const started = useContainers ? await startContainers(missing) : await startLocalServers(missing, env);
    Object.assign(urls, started.urls);
    for (const name of missing) sources[name] = useContainers ? 'container' : 'local';
    stop = started.stop;
  }

  const { databaseUrl, redisUrl, kafkaBrokers, rpcUrl } = urls;
  if (!databaseUrl || !redisUrl || !kafkaBrokers || !rpcUrl) {
    await stop();
    throw new Error('a service provider returned no URL for one of postgres, redis, kafka, anvil');
  }
  return {
    services: {
      databaseUrl,
      redisUrl,
      kafkaBrokers,
      rpcUrl,
      chainId: Number(env['CHAIN_ID'] ?? ANVIL_CHAIN_ID),
      sources,
    },
    stop,
  };
}

function setUrl(urls: ServiceUrls, name: ServiceName, value: string): void {
  switch (name) {
    case 'postgres':
      urls.databaseUrl = value;
      return;
    case 'redis':
      urls.redisUrl = value;
      return;
    case 'kafka':
      urls.kafkaBrokers = value.split(',').map((broker) => broker.trim());
      return;
    case 'anvil':
      urls.rpcUrl = value;
      return;
  }
}
