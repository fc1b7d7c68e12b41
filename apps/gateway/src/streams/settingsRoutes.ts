import { getWebhookSecret, setWebhookSecret } from '@tributary/db';
import type { Router } from 'express';
import { z } from 'zod';
import { ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { type StreamRouteDeps, accountOf } from './streamDeps.ts';

const settingsBody = z.object({ secretKey: z.string().min(8).max(256) });

/** GET/POST /settings: the account's webhook signing secret. */
export function addSettingsRoutes(router: Router, deps: StreamRouteDeps): void {
  router.get('/settings', async (_req, res) => {
    const account = accountOf(res);
    const secretKey = (await getWebhookSecret(deps.pool, account.id)) ?? account.webhookSecret;
    sendJson(res, 200, { secretKey });
  });

  router.post('/settings', async (req, res) => {
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
