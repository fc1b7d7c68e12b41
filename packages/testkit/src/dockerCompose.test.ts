import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from './repoRoot.ts';
import { ANVIL_MAX_PERSISTED_STATES } from './anvilDefaults.ts';

// docker-compose.yml as shipped: safe on a host others can reach (nothing published but the gateway,
// on loopback; passwords and secrets made at the first start, never fixed), and compose.local-tools.yml
// adding the tools on loopback with infra/local's ports, so the same lines work from the host.
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[] | string;
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: unknown };
  user?: string;
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const tools = parse(readFileSync(join(REPO_ROOT, 'infra/docker/compose.local-tools.yml'), 'utf8')) as {
  services: Record<string, Service>;
};

/** PG_PORT=${PG_PORT:-55432} lines of infra/local/lib.sh. */
const localDefaults = Object.fromEntries(
  [
    ...readFileSync(join(REPO_ROOT, 'infra/local/lib.sh'), 'utf8').matchAll(/^(\w+_PORT)=\$\{\1:-(\d+)\}$/gm),
  ].map((match) => [match[1]!, match[2]!]),
);

const hostPorts = (service: Service | undefined) =>
  (service?.ports ?? []).map((mapping) => mapping.split(':').at(-2));
/** Host addresses a service's published ports bind (`0.0.0.0` when a mapping names none). */
const bindAddresses = (service: Service | undefined) =>
  (service?.ports ?? []).map((mapping) => {
    const parts = mapping.replace(/\$\{[A-Z_]+:-([^}]+)\}/, '$1').split(':');
    return parts.length >= 3 ? parts[0] : '0.0.0.0';
  });
/** The gateway's published port as compose writes it: the host's loopback unless GATEWAY_PUBLISH says otherwise. */
const GATEWAY_PORTS = ['$', '{GATEWAY_PUBLISH:-127.0.0.1:8080}:8080'].join('');
const STORES = ['postgres', 'redis', 'kafka', 'anvil', 'prometheus', 'grafana'];

const APPS = {
  'chain-follower': 9101,
  projector: 9102,
  'stream-matcher': 9103,
  'webhook-sender': 9104,
} as const;

describe('docker-compose.yml', () => {
  it('reads the local defaults it is checked against', () => {
    expect(localDefaults).toEqual({
      PG_PORT: '55432',
      REDIS_PORT: '56379',
      KAFKA_PORT: '59092',
      KAFKA_CONTROLLER_PORT: '59093',
      ANVIL_PORT: '58545',
    });
  });

  it('publishes nothing but the gateway, and the gateway on the host loopback by default', () => {
    const published = Object.entries(services)
      .filter(([, s]) => (s.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(published).toEqual(['gateway']);
    expect(services['gateway']?.ports).toEqual([GATEWAY_PORTS]);
    expect(bindAddresses(services['gateway'])).toEqual(['127.0.0.1']);
    // No listener for clients outside the compose network: whoever produces a block event gets signed webhooks for it.
    expect(services['kafka']?.environment?.['KAFKA_LISTENERS']).toBe(
      'INTERNAL://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093',
    );
    expect(String(services['kafka']?.environment?.['KAFKA_ADVERTISED_LISTENERS'])).not.toContain('EXTERNAL');
  });

  it('asks for passwords made at the first start, and holds no secret as a fixed value', () => {
    const postgres = services['postgres']?.environment ?? {};
    expect(postgres['POSTGRES_HOST_AUTH_METHOD']).toBeUndefined();
    expect(postgres).toMatchObject({
      POSTGRES_PASSWORD_FILE: '/run/tributary/pg-password',
      POSTGRES_INITDB_ARGS: '--auth-host=scram-sha-256',
    });
    expect(JSON.stringify(services['redis']?.command)).toContain(
      '--requirepass \\"$$(cat /run/tributary/redis-password)\\"',
    );
    expect(services['secrets']?.command).toEqual([
      'node',
      'infra/docker/generateSecrets.mjs',
      '/run/tributary',
    ]);
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        const what = `${name}: ${key}`;
        // A secret is only ever a file of the secrets volume; a URL never carries credentials.
        if (/PASSWORD|SECRET|TOKEN|_KEY$/.test(key)) expect(what).toMatch(/_FILE$/);
        if (/PASSWORD|SECRET|TOKEN|_KEY$/.test(key)) expect(String(value)).toMatch(/^\/run\/tributary\//);
        expect(`${what}=${value}`).not.toMatch(/:\/\/[^/\s]*:[^/\s]*@/);
      }
    }
    for (const name of ['postgres', 'redis', 'migrate', 'gateway', ...Object.keys(APPS)])
      expect(services[name]?.volumes, name).toContain('secrets:/run/tributary:ro');
    for (const name of ['postgres', 'redis'])
      expect(services[name]?.depends_on?.['secrets'], name).toEqual({
        condition: 'service_completed_successfully',
      });
  });

  it('runs the apps as production: the gateway with its cursor secret', () => {
    for (const name of [...Object.keys(APPS), 'gateway']) {
      expect(services[name]?.environment, name).toMatchObject({
        NODE_ENV: 'production',
        DATABASE_URL_FILE: '/run/tributary/database-url',
        REDIS_URL_FILE: '/run/tributary/redis-url',
      });
    }
    expect(services['gateway']?.environment?.['CURSOR_SECRET_FILE']).toBe('/run/tributary/cursor-secret');
    expect(services['migrate']?.environment).toEqual({ DATABASE_URL_FILE: '/run/tributary/database-url' });
  });

  it("keeps Kafka's log in its volume (a new container keeps the topics)", () => {
    expect(services['kafka']?.environment?.['KAFKA_LOG_DIRS']).toBe('/var/lib/kafka/data');
    expect(services['kafka']?.volumes).toEqual(['kafka-data:/var/lib/kafka/data']);
  });

  it("adds the tools on the host loopback with infra/local's ports in compose.local-tools.yml", () => {
    const t = tools.services;
    expect(hostPorts(t['postgres'])).toEqual([localDefaults['PG_PORT']]);
    expect(hostPorts(t['redis'])).toEqual([localDefaults['REDIS_PORT']]);
    expect(hostPorts(t['kafka'])).toEqual([localDefaults['KAFKA_PORT']]);
    expect(hostPorts(t['anvil'])).toEqual([localDefaults['ANVIL_PORT']]);
    expect(t['kafka']?.environment?.['KAFKA_ADVERTISED_LISTENERS']).toContain(
      `EXTERNAL://127.0.0.1:${localDefaults['KAFKA_PORT']}`,
    );
    for (const [name, service] of Object.entries(t)) {
      expect({ name, binds: [...new Set(bindAddresses(service))] }).toEqual({ name, binds: ['127.0.0.1'] });
    }
    for (const name of Object.keys(APPS))
      expect(hostPorts(t[name])).toEqual([String(APPS[name as keyof typeof APPS])]);
    expect(hostPorts(t['gateway'])).toEqual(['9106']);
    expect(STORES.every((name) => (services[name]?.ports ?? []).length === 0)).toBe(true);
  });

  it('uses the official images, and a devnet that keeps its chain', () => {
    expect(services['kafka']?.image).toBe('apache/kafka:3.9.1');
    expect(services['kafka']?.environment?.['KAFKA_MESSAGE_MAX_BYTES']).toBe(64 * 1024 * 1024);
    expect(services['postgres']?.image).toBe('postgres:15');
    expect(services['redis']?.image).toBe('redis:7');
    expect(services['anvil']?.command).toEqual([
      '--host',
      '0.0.0.0',
      '--chain-id',
      '31337',
      '--block-time',
      '1',
      // The chain survives a restart of the container (the follower would halt on "another chain").
      '--state',
      '/anvil/state.json',
      '--state-interval',
      '10',
      // Past blocks' states on disk, bounded as wherever else anvil runs.
      '--max-persisted-states',
      String(ANVIL_MAX_PERSISTED_STATES),
    ]);
    expect(services['anvil']?.volumes).toEqual(['anvil-data:/anvil']);
  });

  it('scrapes every service with Prometheus and provisions the Grafana dashboard', () => {
    const scrape = parse(readFileSync(join(REPO_ROOT, 'infra/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { static_configs: { targets: string[] }[] }[];
    };
    const targets = scrape.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
    const opsOf = (name: string) => String(services[name]?.environment?.['OPS_PORT']);
    expect(targets.sort()).toEqual(
      [
        ...Object.keys(APPS).map((a) => `${a}:${opsOf(a)}`),
        // The gateway's ops port: its public port serves no metrics.
        `gateway:${opsOf('gateway')}`,
      ].sort(),
    );
    expect(services['prometheus']?.volumes).toContain(
      './infra/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
    );
    expect(services['grafana']?.volumes).toEqual([
      './infra/grafana/provisioning:/etc/grafana/provisioning:ro',
      './infra/grafana/dashboards:/var/lib/grafana/dashboards:ro',
    ]);
    const datasource = readFileSync(
      join(REPO_ROOT, 'infra/grafana/provisioning/datasources/prometheus.yml'),
      'utf8',
    );
    const dashboard = JSON.parse(
      readFileSync(join(REPO_ROOT, 'infra/grafana/dashboards/tributary.json'), 'utf8'),
    ) as {
      panels: { datasource: { uid: string } }[];
    };
    for (const panel of dashboard.panels) expect(datasource).toContain(`uid: ${panel.datasource.uid}`);
  });

  it('gives every service a health check whose command is a list of strings (what compose requires)', () => {
    for (const [name, service] of Object.entries(services)) {
      const test = service.healthcheck?.test;
      expect(test, `${name} has no healthcheck`).toBeTruthy();
      if (Array.isArray(test))
        for (const part of test) expect({ name, part: typeof part }).toEqual({ name, part: 'string' });
    }
  });

  it.each(
    Object.entries(APPS),
  )('runs %s from the one Dockerfile with the shared env and OPS_PORT %i', (name, port) => {
    const service = services[name];
    expect(service, `service ${name} is missing`).toBeDefined();
    expect(service?.build?.dockerfile).toBe('infra/docker/Dockerfile');
    expect(service?.environment).toMatchObject({
      APP: name,
      KAFKA_BROKERS: 'kafka:9092',
      RPC_URL: 'http://anvil:8545',
      CHAIN_ID: '31337',
      OPS_PORT: String(port),
      OPS_HOST: '0.0.0.0',
    });
    expect(hostPorts(service)).toEqual([]);
    expect(JSON.stringify(service?.healthcheck?.test)).toContain('process.env.OPS_PORT');
    expect(JSON.stringify(service?.healthcheck?.test)).toContain('/healthz');
    expect(service?.depends_on?.['migrate']).toEqual({ condition: 'service_completed_successfully' });
  });

  it('serves the gateway on HTTP_PORT 8080 with a /healthz check, its ops port 9106 on the compose network only', () => {
    const gateway = services['gateway'];
    expect(gateway?.environment).toMatchObject({
      APP: 'gateway',
      HTTP_PORT: '8080',
      HTTP_HOST: '0.0.0.0',
      OPS_PORT: '9106',
      OPS_HOST: '0.0.0.0',
    });
    expect(gateway?.ports).toEqual([GATEWAY_PORTS]);
    expect(JSON.stringify(gateway?.healthcheck?.test)).toContain('127.0.0.1:8080/healthz');
  });

  it('applies migrations once before the apps start', () => {
    expect(services['migrate']?.command).toEqual(['pnpm', '--filter', '@tributary/db', 'run', 'migrate']);
    expect(services['migrate']?.depends_on?.['postgres']).toEqual({ condition: 'service_healthy' });
  });

  it('builds an image that bundles the apps and starts the one named by APP from its bundle', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'infra/docker/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20-slim$/m);
    expect(dockerfile).toMatch(/^RUN pnpm build$/m);
    // turbo (pnpm build) needs its turbo.json in the image.
    expect(dockerfile).toMatch(/^COPY .*\bturbo\.json\b.* \.\/$/m);
    expect(dockerfile).toContain('exec node apps/$APP/dist/main.mjs');
  });

  // Compose itself, where this machine has it (bash ../shared/docker/setup.sh, or Docker Desktop):
  // what a user's `docker compose up` parses first.
  const hasCompose = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!hasCompose)(
    'is a compose file that compose accepts, alone and with compose.local-tools.yml',
    () => {
      for (const files of [
        ['docker-compose.yml'],
        ['docker-compose.yml', 'infra/docker/compose.local-tools.yml'],
      ]) {
        const args = [
          'compose',
          ...files.flatMap((f) => ['-f', join(REPO_ROOT, f)]),
          'config',
          '--format',
          'json',
        ];
        const config = JSON.parse(execFileSync('docker', args, { cwd: REPO_ROOT, encoding: 'utf8' })) as {
          services: Record<string, { ports?: { host_ip?: string; published?: string }[] }>;
        };
        const published = Object.entries(config.services).flatMap(([name, svc]) =>
          (svc.ports ?? []).map((p) => `${name} ${p.host_ip ?? '0.0.0.0'}:${p.published}`),
        );
        for (const line of published) expect(line).toMatch(/ 127\.0\.0\.1:\d+$/);
        if (files.length === 1) expect(published).toEqual(['gateway 127.0.0.1:8080']);
      }
    },
  );
});
