import { Router } from 'express';
import { contractLogsContract, tokenOwnersContract, walletTransfersContract } from './dataContracts.ts';
import { contractLogsRoute } from './contractLogsRoute.ts';
import type { DataDeps } from './dataDeps.ts';
import { tokenOwnersRoute } from './tokenOwnersRoute.ts';
import { walletTransfersRoute } from './walletTransfersRoute.ts';
import { registerRoute } from '../openapi/routeContract.ts';

/** The data interface, mounted under /api/v2.2 behind authentication and the rate limit. */
export function createDataRouter(deps: DataDeps): Router {
  const router = Router();
  // Declared before /:address/... so that "erc20" is never read as an address.
  registerRoute(router, tokenOwnersContract, tokenOwnersRoute(deps));
  registerRoute(router, walletTransfersContract, walletTransfersRoute(deps));
  registerRoute(router, contractLogsContract, contractLogsRoute(deps));
  return router;
}
