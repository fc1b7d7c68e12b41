import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './repoRoot.ts';

export type Migrate = (databaseUrl: string) => Promise<void>;

/**
 * `migrate` from @tributary/db, loaded through that package's `exports` entry. The testkit cannot
 * declare @tributary/db as a dependency (db's tests depend on the testkit: a cycle turbo rejects),
 * so it finds the workspace package on disk. Null while the package does not exist.
 */
export async function loadMigrate(): Promise<Migrate | null> {
  const manifestPath = join(REPO_ROOT, 'packages/db/package.json');
  if (!existsSync(manifestPath)) return null;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: unknown; main?: string };
  const entry = entryOf(manifest.exports) ?? manifest.main;
  if (!entry) throw new Error(`${manifestPath} has no exports['.'] entry`);
  const module = (await import(pathToFileURL(join(REPO_ROOT, 'packages/db', entry)).href)) as {
    migrate?: unknown;
  };
  if (typeof module.migrate !== 'function') return null;
  return module.migrate as Migrate;
}

function entryOf(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (exports === null || typeof exports !== 'object') return undefined;
  const root = (exports as Record<string, unknown>)['.'];
  if (typeof root === 'string') return root;
  if (root !== null && typeof root === 'object') {
    const conditions = root as Record<string, unknown>;
    for (const key of ['import', 'default', 'node']) {
      if (typeof conditions[key] === 'string') return conditions[key] as string;
    }
  }
  return undefined;
}
