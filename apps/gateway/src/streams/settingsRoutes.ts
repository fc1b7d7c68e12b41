import { type WebhookSecrets, getWebhookSecrets, rotateWebhookSecret } from '@tributary/db/accounts';
import { WEBHOOK_SECRET_MIN_LENGTH, settingsBody } from '@tributary/schema';
import { standardWebhooksKey } from '@tributary/webhooks';
import type { Router } from 'express';
import { ValidationError } from '../errors/apiErrors.ts';
import { sendJson } from '../json/sendJson.ts';
import { type StreamRouteDeps, accountOf } from './streamDeps.ts';
import { registerRoute } from '../openapi/routeContract.ts';
import { getSettingsContract, setSettingsContract } from './streamContracts.ts';

/** The settings body: the hosted `secretKey`, the same key in `whsec_` form, and a window's end. */
function settingsOf(secrets: WebhookSecrets) {
  return {
    secretKey: secrets.current,
    standardWebhooksKey: standardWebhooksKey(secrets.current),
    ...(secrets.previousValidUntil
      ? { previousSecretValidUntil: secrets.previousValidUntil.toISOString() }
      : {}),
  };
}

/**
 * GET/POST /settings: the account's webhook signing secret. POST rotates it: the secret it replaces
 * keeps signing for the rotation window (see webhookHeaders for which header carries what).
 */
export function addSettingsRoutes(router: Router, deps: StreamRouteDeps): void {
  registerRoute(router, getSettingsContract, async (_req, res) => {
    const account = accountOf(res);
    const secrets = (await getWebhookSecrets(deps.pool, account.id)) ?? { current: account.webhookSecret };
    sendJson(res, 200, settingsOf(secrets));
  });

  registerRoute(router, setSettingsContract, async (req, res) => {
    const account = accountOf(res);
    const parsed = settingsBody.safeParse(req.body);
    if (!parsed.success) {
      throw new ValidationError({
        secretKey: {
          message: `secretKey must be a string of ${WEBHOOK_SECRET_MIN_LENGTH} to 256 characters: a webhook secret needs at least 24 random bytes (32 characters of base64url)`,
        },
      });
    }
    const secrets = await rotateWebhookSecret(
      deps.pool,
      account.id,
      parsed.data.secretKey,
      deps.secretRotationWindowMs,
    );
    sendJson(res, 200, settingsOf(secrets ?? { current: parsed.data.secretKey }));
  });
}
