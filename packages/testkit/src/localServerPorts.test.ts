import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repoRoot.ts';

// infra/local's claim_port: a default port that another program holds moves to a free one (CI once
// failed on a foreign listener on Kafka's default port); a port set through its variable never
// moves. A server's port is kept in its data dir, and that kept port is the one claimed next time,
// which is how these cases reach a taken port without touching the real defaults.
let dataDir: string;
let squatter: Server;
let taken: number;

function claim(script: string, env: Record<string, string> = {}) {
  const run = spawnSync('bash', ['-c', `. infra/local/lib.sh; ${script}`], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', TRIBUTARY_DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

const keep = (service: string, variable: string, port: number) => {
  mkdirSync(join(dataDir, service), { recursive: true });
  writeFileSync(join(dataDir, service, variable), `${port}\n`);
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tributary-ports-'));
  squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  taken = (squatter.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => squatter.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('infra/local claim_port', () => {
  it('moves a port that is not set by its variable off one another program holds, and keeps the new one', () => {
    keep('redis', 'REDIS_PORT', taken);
    const r = claim('claim_port redis REDIS_PORT; echo "$REDIS_PORT"');
    expect(r.status).toBe(0);
    const moved = Number(r.stdout);
    expect(moved).toBeGreaterThan(taken);
    expect(r.stderr).toContain(
      `redis: port ${taken} is taken; using ${moved} instead (set REDIS_PORT to choose)`,
    );
    expect(readFileSync(join(dataDir, 'redis', 'REDIS_PORT'), 'utf8').trim()).toBe(String(moved));
    // status.sh and down.sh read it back.
    expect(claim('echo "$REDIS_PORT"').stdout).toBe(String(moved));
  });

  it('refuses a taken port set through its variable', () => {
    const r = claim('claim_port redis REDIS_PORT; echo "$REDIS_PORT"', { REDIS_PORT: String(taken) });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`redis: port ${taken} is in use`);
    expect(r.stderr).toContain('pick another with REDIS_PORT');
  });

  it('refuses a port variable that is not a port number, before starting anything', () => {
    for (const value of ['-1', '0', '65536', 'abc', '59092x']) {
      const r = claim('claim_port redis REDIS_PORT; echo "$REDIS_PORT"', { REDIS_PORT: value });
      expect(r.status).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        `redis: REDIS_PORT=${value} is not a port number; set REDIS_PORT to a free port`,
      );
    }
  });

  it('never hands the same port to two servers of one start', () => {
    keep('kafka', 'KAFKA_PORT', taken + 1);
    keep('kafka', 'KAFKA_CONTROLLER_PORT', taken + 1);
    const r = claim(
      'claim_port kafka KAFKA_PORT; claim_port kafka-controller KAFKA_CONTROLLER_PORT; echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT"',
    );
    expect(r.status).toBe(0);
    const [broker, controller] = r.stdout.split(' ').map(Number);
    expect(broker).toBeGreaterThan(taken);
    expect(controller).toBeGreaterThan(broker as number);
  });
});
