import type { Router } from 'express';
import { addAddressRoutes } from './addressRoutes.ts';
import { addBackfillRoutes } from './backfillRoutes.ts';
import { addHistoryRoutes } from './historyRoutes.ts';
import { addListenRoutes } from './listenRoutes.ts';
import { addSequenceRoutes } from './sequenceRoutes.ts';
import { addSettingsRoutes } from './settingsRoutes.ts';
import type { StreamRouteDeps } from './streamDeps.ts';
import { addStreamRoutes } from './streamRoutes.ts';

/**
 * The stream interface: /streams/evm..., /history, /stats, /settings, and the listen long poll. Mount it after
 * authentication (it reads `res.locals.account`) and before the 404 handler.
 */
export function mountStreamRoutes(router: Router, deps: StreamRouteDeps): void {
  addStreamRoutes(router, deps);
  addAddressRoutes(router, deps);
  addBackfillRoutes(router, deps);
  addSequenceRoutes(router, deps);
  addHistoryRoutes(router, deps);
  addSettingsRoutes(router, deps);
  addListenRoutes(router, deps);
}

export type { StreamRouteDeps } from './streamDeps.ts';
