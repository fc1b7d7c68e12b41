// Bundles one app into dist/main.mjs: workspace packages are inlined, npm packages stay external
// (they are installed beside it). Usage: node ../../infra/build/bundle.mjs (from an app folder).
import { build } from 'esbuild';

const workspaceOnly = {
  name: 'externalize-npm',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@tributary/') ? undefined : { path: args.path, external: true },
    );
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
console.log(`bundled ${process.cwd().split('/').pop()} -> dist/main.mjs`);
