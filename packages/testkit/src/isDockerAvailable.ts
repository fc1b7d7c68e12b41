import { getContainerRuntimeClient } from 'testcontainers';

/**
 * True when testcontainers finds a container engine that answers. TRIBUTARY_TESTKIT_DOCKER=false skips
 * the probe (a docker CLI without an engine is common on CI machines).
 */
export async function isDockerAvailable(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env['TRIBUTARY_TESTKIT_DOCKER'] === 'false') return false;
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}
