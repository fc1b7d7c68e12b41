import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { AppName } from './launchNode.ts';
import { REPO_ROOT } from './repoRoot.ts';

/**
 * Builds an app's bundle as its image does (`infra/build/bundle.mjs` in the app's folder: npm
 * packages stay external, found from the app's folder at run time) and returns the bundle's path
 * relative to the folder, `dist/main.mjs`. The build's output goes to `stdio` (`pipe` throws it
 * with the error when the build fails).
 */
export function buildAppBundle(app: AppName, stdio: 'pipe' | 'ignore' | 'inherit' = 'pipe'): string {
  execFileSync(process.execPath, [join(REPO_ROOT, 'infra/build/bundle.mjs')], {
    cwd: join(REPO_ROOT, 'apps', app),
    stdio,
  });
  return 'dist/main.mjs';
}
