import { loadKeysEnv } from '../keys/keysEnv.ts';
import { runKeys } from '../keys/runKeys.ts';

// `pnpm --filter @tributary/admin keys create|revoke|list`: accounts and their API keys (see its usage).
// Exits 0 when done, 1 when the command failed (no such key, a server down), 2 on bad usage.
runKeys(process.argv.slice(2), loadKeysEnv, (line) => console.log(line)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`keys: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
