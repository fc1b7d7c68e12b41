/** The webhook-sender's defaults (apps/webhook-sender/src/env.ts), which the soak's services run with unless set. */
const DEFAULT_DELIVERED_DAYS = 30;

/**
 * The delivery retention the soak's services run with (they inherit the soak's environment):
 * `DELIVERY_RETENTION_DAYS` for delivered webhooks, the bulk of a soak's rows, else the sender's
 * default. Failed and held rows are kept longer (FAILED_DELIVERY_RETENTION_DAYS); a soak's
 * receivers fail a few percent, which the projection leaves out and the source says.
 */
export function deliveryRetentionFromEnv(env: Record<string, string | undefined>): {
  hours: number;
  source: string;
} {
  const v = env['DELIVERY_RETENTION_DAYS'];
  const failed = env['FAILED_DELIVERY_RETENTION_DAYS'] ?? '90 (default)';
  if (v !== undefined && v !== '' && Number.isInteger(Number(v)) && Number(v) >= 1)
    return {
      hours: Number(v) * 24,
      source: `DELIVERY_RETENTION_DAYS=${v} (environment); failed rows ${failed} days`,
    };
  return {
    hours: DEFAULT_DELIVERED_DAYS * 24,
    source: `DELIVERY_RETENTION_DAYS ${DEFAULT_DELIVERED_DAYS} (default); failed rows ${failed} days`,
  };
}
