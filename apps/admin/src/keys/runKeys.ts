import { parseArgs } from 'node:util';
import { createPool, migrate } from '@tributary/db';
import { createAccountWithKey, listApiKeys, revokeApiKey } from '@tributary/db/accounts';
import type { KeysEnv } from './keysEnv.ts';

const KEYS_USAGE = `usage:
  keys create --account <name> [--label <label>]   create a key (and the account if needed); prints the key once
  keys revoke <key-or-prefix>                       revoke one key
  keys list                                         list keys (prefixes only)`;

/**
 * Runs one keys command against the database `loadEnv` names (read only once a command is given,
 * so `--help` needs none); 0 done, 1 no such key or an ambiguous prefix, 2 bad usage.
 */
export async function runKeys(
  argv: readonly string[],
  loadEnv: () => KeysEnv,
  out: (line: string) => void,
): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      label: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, arg] = positionals;
  if (values.help || !command) {
    out(KEYS_USAGE);
    return command ? 0 : 2;
  }
  const env = loadEnv();
  await migrate(env.DATABASE_URL);
  const pool = createPool({ connectionString: env.DATABASE_URL, max: 2, application: 'gateway-keys' });
  try {
    switch (command) {
      case 'create': {
        if (!values.account) {
          out('keys create: --account <name> is required');
          return 2;
        }
        const created = await createAccountWithKey(pool, {
          accountName: values.account,
          label: values.label,
        });
        out(
          `${created.accountCreated ? 'created account' : 'account'} ${created.accountName} (${created.accountId})`,
        );
        out(`api key (shown once, store it now): ${created.key}`);
        return 0;
      }
      case 'revoke': {
        if (!arg) {
          out('keys revoke: give the key or its prefix');
          return 2;
        }
        const result = await revokeApiKey(pool, arg);
        switch (result.outcome) {
          case 'revoked':
            out(`revoked ${result.prefix}…`);
            return 0;
          case 'not-found':
            out(`no active key matches ${arg}`);
            return 1;
          case 'ambiguous':
            out(`${arg} matches several keys: ${result.prefixes.join(', ')}; give more characters`);
            return 1;
        }
        return 1;
      }
      case 'list': {
        for (const k of await listApiKeys(pool)) {
          const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
          out(`${k.prefix}…\t${k.accountName}\t${k.label ?? ''}\t${k.createdAt.toISOString()}\t${state}`);
        }
        return 0;
      }
      default:
        out(`unknown command ${command}\n${KEYS_USAGE}`);
        return 2;
    }
  } finally {
    await pool.end();
  }
}
