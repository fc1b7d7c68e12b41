import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@tributary/testkit/bench';

const run = promisify(execFile);

export interface ComposeProject {
  name: string;
  /** `docker compose <args>` for this project; resolves with stdout. */
  compose(args: string[], timeoutMs?: number): Promise<string>;
  /** The services of the shipped file (Grafana left out: no stand-in image on the project's machines). */
  services: string[];
}

/**
 * The repository's docker-compose.yml as a user runs it, under a project name of its own, plus an
 * override that only this test needs: the gateway and the devnet published on free loopback ports,
 * and webhooks allowed to a receiver on the host (host.docker.internal), as
 * infra/docker/compose.local-tools.yml does for development.
 */
export async function createComposeProject(opts: {
  gatewayPort: number;
  anvilPort: number;
}): Promise<ComposeProject> {
  const name = `tributary-e2e-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'tributary-compose-'));
  const override = join(dir, 'compose.e2e.yml');
  const allowHost = {
    extra_hosts: ['host.docker.internal:host-gateway'],
    environment: { ALLOW_PRIVATE_WEBHOOK_URLS: 'true' },
  };
  writeFileSync(
    override,
    JSON.stringify({
      services: {
        anvil: { ports: [`127.0.0.1:${opts.anvilPort}:8545`] },
        'webhook-sender': allowHost,
        gateway: allowHost,
      },
    }),
  );
  const env = { ...process.env, GATEWAY_PUBLISH: `127.0.0.1:${opts.gatewayPort}` };
  const compose = async (args: string[], timeoutMs = 600_000) =>
    (
      await run(
        'docker',
        ['compose', '-p', name, '-f', join(REPO_ROOT, 'docker-compose.yml'), '-f', override, ...args],
        {
          cwd: REPO_ROOT,
          env,
          timeout: timeoutMs,
          maxBuffer: 64 * 1024 * 1024,
        },
      )
    ).stdout;
  const services = (await compose(['config', '--services']))
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s && s !== 'grafana');
  return { name, compose, services };
}

/**
 * The address containers reach the host by (host-gateway: the default bridge's gateway). The
 * engine does not always say it (an IPAM config with a subnet only): then the subnet's first address,
 * which is the one it takes.
 */
export async function dockerHostAddress(): Promise<string> {
  const { stdout } = await run('docker', [
    'network',
    'inspect',
    'bridge',
    '--format',
    '{{json .IPAM.Config}}',
  ]);
  const [config] = JSON.parse(stdout) as { Subnet?: string; Gateway?: string }[];
  if (config?.Gateway) return config.Gateway;
  const subnet = /^(\d+\.\d+\.\d+)\.0\/\d+$/.exec(config?.Subnet ?? '');
  if (!subnet) throw new Error(`cannot tell the docker bridge's gateway from ${stdout.trim()}`);
  return `${subnet[1]}.1`;
}
