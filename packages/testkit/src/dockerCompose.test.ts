import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from './repoRoot.ts';

// docker-compose.yml and infra/local must agree: same variable names, same host ports.
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[] | string;
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

/** PG_PORT=${PG_PORT:-55432} lines of infra/local/lib.sh. */
const localDefaults = Object.fromEntries(
  [
    ...readFileSync(join(REPO_ROOT, 'infra/local/lib.sh'), 'utf8').matchAll(/^(\w+_PORT)=\$\{\1:-(\d+)\}$/gm),
  ].map((match) => [match[1]!, match[2]!]),
);

const hostPorts = (service: Service | undefined) =>
  (service?.ports ?? []).map((mapping) => mapping.split(':').at(-2));

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

  it('publishes the servers on the same host ports as infra/local', () => {
    expect(hostPorts(services['postgres'])).toEqual([localDefaults['PG_PORT']]);
    expect(hostPorts(services['redis'])).toEqual([localDefaults['REDIS_PORT']]);
    expect(hostPorts(services['kafka'])).toEqual([localDefaults['KAFKA_PORT']]);
    expect(hostPorts(services['anvil'])).toEqual([localDefaults['ANVIL_PORT']]);
    expect(services['kafka']?.image).toBe('apache/kafka:3.9.1');
    expect(services['kafka']?.environment?.['KAFKA_ADVERTISED_LISTENERS']).toContain(
      `EXTERNAL://127.0.0.1:${localDefaults['KAFKA_PORT']}`,
    );
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

  it('gives every service a health check', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.healthcheck?.test, `${name} has no healthcheck`).toBeTruthy();
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
      DATABASE_URL: 'postgres://tributary@postgres:5432/tributary',
      REDIS_URL: 'redis://redis:6379',
      KAFKA_BROKERS: 'kafka:9092',
      RPC_URL: 'http://anvil:8545',
      CHAIN_ID: '31337',
      OPS_PORT: String(port),
      OPS_HOST: '0.0.0.0',
    });
    expect(hostPorts(service)).toEqual([String(port)]);
    expect(JSON.stringify(service?.healthcheck?.test)).toContain('process.env.OPS_PORT');
    expect(JSON.stringify(service?.healthcheck?.test)).toContain('/healthz');
    expect(service?.depends_on?.['migrate']).toEqual({ condition: 'service_completed_successfully' });
  });

  it('serves the gateway on HTTP_PORT 8080 with a /healthz check, its ops port 9106 on the host loopback only', () => {
    const gateway = services['gateway'];
    expect(gateway?.environment).toMatchObject({
      APP: 'gateway',
      HTTP_PORT: '8080',
      HTTP_HOST: '0.0.0.0',
      OPS_PORT: '9106',
      OPS_HOST: '0.0.0.0',
    });
    expect(gateway?.ports).toEqual(['8080:8080', '127.0.0.1:9106:9106']);
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
    expect(dockerfile).toContain('exec node apps/$APP/dist/main.mjs');
  });
});
