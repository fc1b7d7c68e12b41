import { databaseEnv, parseEnv } from '@tributary/config';
import { z } from 'zod';
import { migrate } from './migrate.ts';

const env = parseEnv(z.object({ DATABASE_URL: databaseEnv.DATABASE_URL }));
const started = Date.now();
migrate(env.DATABASE_URL, (line) => console.log(line)).then(
  ({ applied }) => {
    console.log(
      JSON.stringify({ msg: 'migrations up to date', applied: applied.length, ms: Date.now() - started }),
    );
  },
  (err: unknown) => {
    console.error(`migrate: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
