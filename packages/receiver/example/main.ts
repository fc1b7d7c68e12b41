import pg from 'pg';
import { createLedgerApp } from './createLedgerApp.ts';

// The example receiver as a process: DATABASE_URL (its own database), WEBHOOK_SECRETS (the account's
// secretKey from GET /settings; during a rotation, the new one and the old one, comma-separated) and
// PORT (3000).
const databaseUrl = process.env['DATABASE_URL'];
const secrets = (process.env['WEBHOOK_SECRETS'] ?? '').split(',').filter((s) => s !== '');
const port = Number(process.env['PORT'] ?? '3000');
if (!databaseUrl || secrets.length === 0 || !Number.isInteger(port)) {
  console.error('example: set DATABASE_URL and WEBHOOK_SECRETS (PORT optional, 3000 by default)');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
const { app } = await createLedgerApp({ pool, secrets });
const server = app.listen(port, '127.0.0.1', () => {
  console.log(`ledger receiver on http://127.0.0.1:${port}/webhook; balances at /balances/<token>`);
});
const stop = () => server.close(() => void pool.end());
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
