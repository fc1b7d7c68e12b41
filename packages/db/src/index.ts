// The core: pool, transactions, migrations and bytea helpers. Each table group is its own entry
// (`@tributary/db/accounts`, `/chain`, `/queries`, `/streams`, `/ops`), so an app imports only the
// groups it uses.
export { MIGRATIONS_DIR, type Migration, loadMigrations, migrate } from './migrate.ts';
export {
  POOL_TIMEOUT_DEFAULTS,
  type PoolTimeouts,
  createPool,
  type Pool,
  type PoolClient,
} from './createPool.ts';
export { bytesToHex, hexToBytes } from './bytes.ts';
export { withTransaction } from './withTransaction.ts';
