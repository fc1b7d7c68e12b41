// Prints the path of the native anvil binary that npm's @foundry-rs/anvil installed for this platform,
// so the pid we record is anvil's own (the .bin shim is a node wrapper around it).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = new URL('../../', import.meta.url);
const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
try {
  const fromWrapper = createRequire(resolveFromRoot('@foundry-rs/anvil/package.json'));
  const binary = join(dirname(fromWrapper.resolve(`${platformPackage}/package.json`)), 'bin', 'anvil');
  if (!existsSync(binary)) throw new Error(`${binary} does not exist`);
  console.log(binary);
} catch (error) {
  console.error(`cannot find ${platformPackage}: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}

function resolveFromRoot(specifier) {
  return createRequire(new URL('package.json', root)).resolve(specifier);
}
