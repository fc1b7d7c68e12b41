import { getWebhookSecret, setWebhookSecret } from '@tributary/db';
import { settingsBody } from '@tributary/schema';
import type { Router } from 'express';
import { ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { type StreamRouteDeps, accountOf } from './streamDeps.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import { getSettingsContract, setSettingsContract } from './streamContracts.ts';

/** GET/POST /settings: the account's webhook signing secret. */
export function addSettingsRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, getSettingsContract, async (_req, res) => {
    const account = accountOf(res);
    const secretKey = (await getWebhookSecret(deps.pool, account.id)) ?? account.webhookSecret;
    sendJson(res, 200, { secretKey });
  });

  registerRoute(router, setSettingsContract, async (req, res) => {
    const account = accountOf(res);
    const parsed = settingsBody.safeParse(req.body);
    if (!parsed.success) {
      throw new ValidationError({
        secretKey: { message: 'secretKey must be a string of 8 to 256 characters' },
      });
    }
    await setWebhookSecret(deps.pool, account.id, parsed.data.secretKey);
    sendJson(res, 200, { secretKey: parsed.data.secretKey });
  });
}
