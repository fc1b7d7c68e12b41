import { fileURLToPath } from 'node:url';

/** The monorepo root (this file is packages/testkit/src/repoRoot.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
