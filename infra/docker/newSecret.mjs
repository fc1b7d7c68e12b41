import { randomBytes } from 'node:crypto';

/**
 * A secret of the compose deployment: 24 random bytes in hex. Redis reads its password from a
 * command line (`redis-server --requirepass "$(cat ...)"`): hex never starts with '-', so it can
 * never be read as an option, and it needs no quoting in a shell, a URL or YAML (base64url, used
 * before, starts with '-' once in 64 values).
 */
export function newSecret() {
  return randomBytes(24).toString('hex');
}
