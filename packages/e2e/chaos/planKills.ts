import { SERVER_NAMES, type ServerName } from './privateServers.ts';
import { APP_NAMES, type AppName } from '@tributary/testkit/bench';

export type KillTarget = AppName | ServerName;

/** Kill moments spread at random over 5%..90% of the run; the first targets are every one once. */
export function planKills(
  n: number,
  durationMs: number,
  among: readonly KillTarget[] = [...APP_NAMES, ...SERVER_NAMES],
): { at: number; target: KillTarget }[] {
  const all = [...among];
  const targets = shuffle(all).slice(0, Math.min(n, all.length));
  while (targets.length < n) targets.push(all[Math.floor(Math.random() * all.length)]!);
  const times = Array.from({ length: n }, () => durationMs * (0.05 + Math.random() * 0.85)).sort(
    (a, b) => a - b,
  );
  return times.map((at, i) => ({ at, target: targets[i]! }));
}

function shuffle<T>(list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
