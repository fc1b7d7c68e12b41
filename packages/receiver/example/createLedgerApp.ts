import { type Receiver, createExpressHandler, createReceiver } from '@tributary/receiver';
import express from 'express';
import type { Pool } from 'pg';
import { ensureLedger, ledgerHandlers, readBalances } from './ledger.ts';

export { ensureLedger, ledgerHandlers, readBalances, type Balance } from './ledger.ts';

/**
 * The example receiver: POST /webhook takes the stream's webhooks through the kit into the ledger;
 * GET /balances/:token answers what the ledger holds.
 */
export async function createLedgerApp(opts: {
  pool: Pool;
  /** The account's webhook secret (and the previous one during a rotation window). */
  secrets: string[];
}): Promise<{ app: express.Express; receiver: Receiver }> {
  await ensureLedger(opts.pool);
  const receiver = createReceiver({ pool: opts.pool, secrets: opts.secrets, ...ledgerHandlers });
  await receiver.ready();
  const app = express();
  // Before any body parser: the signatures cover the exact bytes.
  app.post('/webhook', createExpressHandler(receiver));
  app.get('/balances/:token', async (req, res) => {
    res.json({
      token: req.params.token.toLowerCase(),
      balances: await readBalances(opts.pool, req.params.token),
    });
  });
  return { app, receiver };
}
