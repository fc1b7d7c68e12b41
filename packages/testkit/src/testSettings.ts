import { inject } from 'vitest';

/** Where a service came from: given by env vars, a testcontainer, or a server started by infra/local/up.sh. */
export type ServiceSource = 'env' | 'container' | 'local';

/** Connection settings for the real servers tests run against. JSON-serializable (crosses vitest's provide). */
export interface TestSettings {
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  rpcUrl: string;
  chainId: number;
  sources: { postgres: ServiceSource; redis: ServiceSource; kafka: ServiceSource; anvil: ServiceSource };
  /** Unique per test run; prefixes the databases createTestDatabase makes so teardown can drop them. */
  runId: string;
  /** Database with migrations applied that createTestDatabase copies; null when none was prepared. */
  templateDatabase: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    tributary: TestSettings;
  }
}

/** The run's settings as the global setup provided them; outside it, from the same env vars it exports. */
export function getTestSettings(): TestSettings {
  let provided: TestSettings | undefined;
  try {
    provided = inject('tributary');
  } catch {
    // Not inside a vitest worker (a benchmark script that reuses the e2e harness): from the env.
  }
  if (provided) return provided;
  return settingsFromEnv(process.env);
}

function settingsFromEnv(env: NodeJS.ProcessEnv): TestSettings {
  const names = ['DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS', 'RPC_URL'] as const;
  const missing = names.filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new Error(
      `No test settings: ${missing.join(', ')} unset and no vitest globalSetup ` +
        `('@tributary/testkit/global-setup') provided them`,
    );
  }
  return {
    databaseUrl: env['DATABASE_URL']!,
    redisUrl: env['REDIS_URL']!,
    kafkaBrokers: env['KAFKA_BROKERS']!.split(','),
    rpcUrl: env['RPC_URL']!,
    chainId: Number(env['CHAIN_ID'] ?? 31337),
    sources: { postgres: 'env', redis: 'env', kafka: 'env', anvil: 'env' },
    runId: env['TRIBUTARY_TEST_RUN_ID'] ?? 'adhoc',
    templateDatabase: env['TRIBUTARY_TEST_TEMPLATE_DB'] || null,
  };
}
