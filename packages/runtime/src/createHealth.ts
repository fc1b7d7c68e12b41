type Check = () => Promise<void> | void;

interface HealthReport {
  status: 'ok' | 'fail';
  checks: Record<string, { ok: boolean; error?: string }>;
}

/**
 * Liveness is "the process answers"; readiness runs the named checks (a dependency ping,
 * "consumer joined", ...) and flips to not ready as soon as shutdown starts.
 */
export interface Health {
  addCheck(name: string, check: Check): void;
  setDraining(): void;
  isDraining(): boolean;
  ready(): Promise<HealthReport>;
}

export function createHealth(timeoutMs = 2_000): Health {
  const checks = new Map<string, Check>();
  let draining = false;
  return {
    addCheck(name, check) {
      checks.set(name, check);
    },
    setDraining() {
      draining = true;
    },
    isDraining: () => draining,
    async ready() {
      const report: HealthReport = { status: draining ? 'fail' : 'ok', checks: {} };
      if (draining) report.checks['shutdown'] = { ok: false, error: 'draining' };
      await Promise.all(
        [...checks].map(async ([name, check]) => {
          try {
            await withTimeout(Promise.resolve(check()), timeoutMs);
            report.checks[name] = { ok: true };
          } catch (err) {
            report.status = 'fail';
            report.checks[name] = { ok: false, error: err instanceof Error ? err.message : String(err) };
          }
        }),
      );
      return report;
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`check timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
