import { Router } from 'express';
import { contractLogsRoute } from './contractLogsRoute.ts';
import type { DataDeps } from './dataDeps.ts';
import { tokenOwnersRoute } from './tokenOwnersRoute.ts';
import { walletTransfersRoute } from './walletTransfersRoute.ts';

/** The data interface, mounted under /api/v2.2 behind authentication and the rate limit. */
export function createDataRouter(deps: DataDeps): Router {
  const router = Router();
  // Declared before /:address/... so that "erc20" is never read as an address.
  router.get('/erc20/:token_address/owners', tokenOwnersRoute(deps));
  router.get('/:address/erc20/transfers', walletTransfersRoute(deps));
  router.get('/:address/logs', contractLogsRoute(deps));
  return router;
}
