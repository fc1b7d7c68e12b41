import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repoRoot.ts';

// Values made at random and handed to a command line must never look like an option: one Kafka
// cluster id in 64 started with '-', and `kafka-storage format -t <id>` then failed a first start.

function bash(script: string) {
  const run = spawnSync('bash', ['-c', script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '' },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const CLUSTER_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]{20}[AQgw]$/;

describe('the Kafka cluster id (infra/kafka/cluster-id.sh)', () => {
  it('is never one that starts with "-", over a thousand made', () => {
    // The earlier generator gave at least one such id in a thousand with a probability of 1 - 1e-7.
    const r = bash('. infra/kafka/cluster-id.sh; for _ in $(seq 1000); do new_cluster_id; done');
    expect(r.status).toBe(0);
    const ids = r.stdout.trim().split('\n');
    expect(ids).toHaveLength(1000);
    expect(ids.filter((id) => !CLUSTER_ID.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(1000);
    // base64url, as Kafka's: '-' and '_' do occur, past the first character.
    expect(ids.some((id) => id.includes('-'))).toBe(true);
    expect(ids.every((id) => Buffer.from(id, 'base64url').length === 16)).toBe(true);
  });

  it('is drawn again when the random bytes make one that starts with "-"', () => {
    // The first draw is 0xf8 0x00..: base64 "+A..", which base64url makes "-A..". The second is
    // fixed too (a random one starts with "-" once in 64 draws itself).
    const r = bash(`. infra/kafka/cluster-id.sh
      draws=$(mktemp)
      head() {
        echo >>"$draws"
        if [ "$(wc -l <"$draws")" = 1 ]; then printf '\\xf8\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01'
        else printf '\\x10\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01'; fi
      }
      id=$(new_cluster_id)
      echo "$id $(wc -l <"$draws")"
      rm -f "$draws"`);
    expect(r.status).toBe(0);
    const [id, draws] = r.stdout.trim().split(' ');
    expect(draws).toBe('2');
    expect(id).toMatch(CLUSTER_ID);
    expect(id).toBe('EAAAAAAAAAAAAAAAAAAAAQ');
  });

  it('accepts only ids Kafka could have made', () => {
    const usable = (id: string) =>
      bash(`. infra/kafka/cluster-id.sh; cluster_id_usable '${id}'`).status === 0;
    expect(usable('4L6g3nShT-eMCtK--X86sw')).toBe(true);
    expect(usable('-L6g3nShT-eMCtK--X86sw')).toBe(false);
    expect(usable('AAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
    expect(usable('AAAAAAAAAAAAAAAAAAAAAQ')).toBe(false);
    expect(usable('')).toBe(false);
  });
});

describe("the compose deployment's secrets (infra/docker)", () => {
  it('are hex, never a value that starts with "-", over a hundred thousand made', async () => {
    const { newSecret } = (await import(
      pathToFileURL(join(REPO_ROOT, 'infra/docker/newSecret.mjs')).href
    )) as {
      newSecret: () => string;
    };
    const secrets = Array.from({ length: 100_000 }, () => newSecret());
    expect(secrets.filter((s) => !/^[0-9a-f]{48}$/.test(s))).toEqual([]);
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('are written by generateSecrets.mjs, with the URLs the apps connect with', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-secrets-'));
    try {
      const r = spawnSync('node', [join(REPO_ROOT, 'infra/docker/generateSecrets.mjs'), dir], {
        encoding: 'utf8',
      });
      expect(r.stdout.trim()).toBe('secrets made: pg-password, redis-password, cursor-secret');
      const read = (name: string) => readFileSync(join(dir, name), 'utf8');
      for (const name of ['pg-password', 'redis-password', 'cursor-secret'])
        expect(read(name)).toMatch(/^[0-9a-f]{48}$/);
      expect(read('database-url')).toBe(
        `postgres://tributary:${read('pg-password')}@postgres:5432/tributary`,
      );
      expect(read('redis-url')).toBe(`redis://:${read('redis-password')}@redis:6379`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
