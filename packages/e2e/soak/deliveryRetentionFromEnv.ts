/**
 * The delivery retention the services run with, read from the variables it may be given as
 * (the soak's services inherit the soak's environment): `DELIVERY_RETENTION_DAYS`,
 * `DELIVERY_RETENTION_HOURS`, `DELIVERY_RETENTION_MS`, or `DELIVERY_RETENTION` as a number of
 * days or with a unit (`7d`, `72h`, `3600000ms`). Hours null: none is set.
 */
export function deliveryRetentionFromEnv(env: Record<string, string | undefined>): {
  hours: number | null;
  source: string;
} {
  const perUnit: [string, (v: number) => number][] = [
    ['DELIVERY_RETENTION_DAYS', hoursOf.d],
    ['DELIVERY_RETENTION_HOURS', hoursOf.h],
    ['DELIVERY_RETENTION_MS', hoursOf.ms],
  ];
  for (const [name, toHours] of perUnit) {
    const v = env[name];
    if (v !== undefined && v !== '' && Number.isFinite(Number(v)))
      return { hours: toHours(Number(v)), source: `${name}=${v} (environment)` };
  }
  const v = env['DELIVERY_RETENTION'];
  const m = v === undefined ? null : /^\s*(\d+(?:\.\d+)?)\s*(d|h|ms)?\s*$/.exec(v);
  if (m) {
    const toHours = hoursOf[(m[2] ?? 'd') as keyof typeof hoursOf];
    return { hours: toHours(Number(m[1])), source: `DELIVERY_RETENTION=${v} (environment)` };
  }
  return { hours: null, source: 'none set (no DELIVERY_RETENTION* variable): every delivery row is kept' };
}

const hoursOf = {
  d: (v: number) => v * 24,
  h: (v: number) => v,
  ms: (v: number) => v / 3_600_000,
};
