import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './repoRoot.ts';
import type { ServiceName, StartedServices } from './startedServices.ts';

const SCRIPT_NAMES: Record<ServiceName, string> = {
  postgres: 'pg',
  redis: 'redis',
  kafka: 'kafka',
  anvil: 'anvil',
};

/**
 * Starts (or finds already running) the no-Docker servers with infra/local/up.sh and reads the
 * connection lines it prints. They stay up after the run: the next run reuses them in a second.
 * `stop` runs down.sh only when TRIBUTARY_TESTKIT_STOP_LOCAL=true.
 */
export async function startLocalServers(
  names: readonly ServiceName[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartedServices> {
  const args = names.map((name) => SCRIPT_NAMES[name]);
  const stdout = await runScript('up.sh', args, env);
  const lines = new Map(
    stdout
      .split('\n')
      .map((line) => line.trim().split(/=(.*)/s))
      .filter((parts): parts is [string, string, string] => parts.length >= 2 && parts[1] !== undefined)
      .map(([key, value]) => [key, value]),
  );
  const urls: StartedServices['urls'] = {};
  if (names.includes('postgres')) urls.databaseUrl = required(lines, 'DATABASE_URL');
  if (names.includes('redis')) urls.redisUrl = required(lines, 'REDIS_URL');
  if (names.includes('kafka')) urls.kafkaBrokers = required(lines, 'KAFKA_BROKERS').split(',');
  if (names.includes('anvil')) urls.rpcUrl = required(lines, 'RPC_URL');
  const stop = async () => {
    if (env['TRIBUTARY_TESTKIT_STOP_LOCAL'] === 'true') await runScript('down.sh', args, env);
  };
  return { urls, stop };
}

function required(lines: Map<string, string>, key: string): string {
  const value = lines.get(key);
  if (!value) throw new Error(`infra/local/up.sh printed no ${key}= line`);
  return value;
}

function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(REPO_ROOT, 'infra/local', script), ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(`infra/local/${script} ${args.join(' ')} exited with ${code} (its messages are above)`),
        );
    });
  });
}
