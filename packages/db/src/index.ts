// The core: pool, transactions, migrations and bytea helpers. Each table group is its own entry
// (`@tributary/db/accounts`, `/chain`, `/queries`, `/streams`, `/ops`), so an app imports only the
// groups it uses.
export { migrate } from './migrate.ts';
export {
  createPool,
  type Pool,
  type PoolClient,
} from './createPool.ts';
export { hexToBytes } from './bytes.ts';
export { withTransaction } from './withTransaction.ts';
