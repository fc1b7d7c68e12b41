import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_NAMES } from './launchNode.ts';
import { REPO_ROOT } from './repoRoot.ts';
import { SERVICE_NODE_FLAGS, serviceNodeOptions } from './serviceNodeFlags.ts';

// Every place a service is started gives it the flags of SERVICE_NODE_FLAGS, so that what the tests,
// the soak and the chaos command run (launchApp) is what `npm start`, the apps' start scripts and
// compose ship.
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string> }>;
};
const startAll = read('infra/dev/start-all.sh');

describe.each(APP_NAMES)('%s', (app) => {
  const flags = SERVICE_NODE_FLAGS[app];
  const command = (main: string) => ['node', ...flags, '--import', 'tsx', main].join(' ');

  it("its package.json start script runs node with the table's flags", () => {
    const pkg = JSON.parse(read(`apps/${app}/package.json`)) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']).toBe(command('src/main.ts'));
  });

  it("npm start (start-all.sh) runs it with the table's flags, every instance", () => {
    const lines = startAll.split('\n').filter((line) => line.includes(` apps/${app}/src/main.ts`));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(line).toMatch(new RegExp(`run_bg [\\w-]+ ${command(`apps/${app}/src/main.ts`)}$`));
  });

  it("compose gives it the table's flags as NODE_OPTIONS", () => {
    const env = compose.services[app]?.environment;
    expect(env).toBeDefined();
    expect(env?.['NODE_OPTIONS']).toBe(flags.length ? flags.join(' ') : undefined);
  });
});

describe('serviceNodeOptions (what launchApp starts a service with)', () => {
  it("gives a service its flags, and the caller's NODE_OPTIONS after them, where they win", () => {
    expect(serviceNodeOptions('projector')).toBe('--max-semi-space-size=64');
    expect(serviceNodeOptions('gateway')).toBe('');
    expect(serviceNodeOptions('projector', '--max-semi-space-size=16')).toBe(
      '--max-semi-space-size=64 --max-semi-space-size=16',
    );
    expect(serviceNodeOptions('gateway', '--max-semi-space-size=32')).toBe('--max-semi-space-size=32');
  });
});
