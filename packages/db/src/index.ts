export { MIGRATIONS_DIR, type Migration, loadMigrations, migrate } from './migrate.ts';
export { createPool, type Pool, type PoolClient } from './createPool.ts';
export { bytesToHex, hexToBytes, nullableBytesToHex } from './bytes.ts';
