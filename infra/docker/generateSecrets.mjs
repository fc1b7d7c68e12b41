// The compose deployment's secrets, made once at its first start (the one-shot `secrets` service)
// into a volume that only its own services mount: PostgreSQL's and Redis's passwords and the
// gateway's cursor secret, 24 random bytes each (newSecret.mjs), and the URLs the apps connect with
// (read through DATABASE_URL_FILE and REDIS_URL_FILE). Kept ever after: a restart or a rebuild
// reuses them; remove the volume to make new ones.
//   node infra/docker/generateSecrets.mjs <dir>
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecret } from './newSecret.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: generateSecrets.mjs <dir>');
  process.exit(2);
}
const made = [];
for (const name of ['pg-password', 'redis-password', 'cursor-secret']) {
  const file = join(dir, name);
  if (existsSync(file)) continue;
  writeFileSync(file, newSecret(), { mode: 0o444, flag: 'wx' });
  made.push(name);
}
const secret = (name) => readFileSync(join(dir, name), 'utf8').trim();
const urls = {
  'database-url': `postgres://tributary:${secret('pg-password')}@postgres:5432/tributary`,
  'redis-url': `redis://:${secret('redis-password')}@redis:6379`,
};
for (const [name, value] of Object.entries(urls)) {
  rmSync(join(dir, name), { force: true });
  writeFileSync(join(dir, name), value, { mode: 0o444 });
}
console.log(made.length > 0 ? `secrets made: ${made.join(', ')}` : 'secrets kept from an earlier start');
