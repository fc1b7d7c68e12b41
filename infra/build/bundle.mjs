// Bundles one app into dist/main.mjs: workspace packages are inlined, npm packages stay external
// (they are installed beside it). Usage: node ../../infra/build/bundle.mjs (from an app folder).
import { readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

// esbuild is a devDependency of each app, not of the repo root: resolve it from the app being built.
const esbuildPath = createRequire(join(process.cwd(), 'package.json')).resolve('esbuild');
const { build } = await import(pathToFileURL(esbuildPath).href);

// npm packages stay external and are resolved at run time from the app's own node_modules, so the
// app must list every one its bundle imports, including those only its workspace packages use.
const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }));
const undeclared = new Map();
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

const workspaceOnly = {
  name: 'externalize-npm',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@tributary/')) return undefined;
      const name = packageName(args.path);
      if (!args.path.startsWith('node:') && !isBuiltin(name) && !declared.has(name)) {
        undeclared.set(name, relative(process.cwd(), args.importer));
      }
      return { path: args.path, external: true };
    });
  },
};

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.mjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  plugins: [workspaceOnly],
  logLevel: 'warning',
});
const app = process.cwd().split('/').pop();
if (undeclared.size > 0) {
  for (const [name, importer] of undeclared)
    console.error(`${app}: ${name} (imported by ${importer}) is not a dependency`);
  console.error(`${app}: add them to its package.json; the bundle would not find them at run time`);
  process.exit(1);
}
console.log(`bundled ${app} -> dist/main.mjs`);
