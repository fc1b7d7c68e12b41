import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAppBundle } from './buildAppBundle.ts';
import { REPO_ROOT } from './repoRoot.ts';
import { serviceNodeOptions } from './serviceNodeFlags.ts';

/** The deployables, each started as `node --import tsx apps/<app>/src/main.ts`, in start-up order. */
export const APP_NAMES = [
  'chain-follower',
  'projector',
  'stream-matcher',
  'webhook-sender',
  'gateway',
] as const;
export type AppName = (typeof APP_NAMES)[number];
/** Set by the testkit's globalSetup for the run's workers; launchNode passes it on to every child. */
export const TEST_RUN_VARIABLE = 'TRIBUTARY_TEST_RUN_ID';
const EXIT_WITH_PARENT = fileURLToPath(new URL('./exitWithParent.mjs', import.meta.url));
const JEMALLOC_SCRIPT = join(REPO_ROOT, 'infra', 'lib', 'jemalloc.sh');

/** The script's answers by `${TRIBUTARY_MALLOC}\n${LD_PRELOAD}`, all it depends on: asked once each. */
const preloads = new Map<string, string>();

/**
 * The LD_PRELOAD a child with this environment gets: jemalloc first, as `npm start` and the image
 * run the services (infra/lib/jemalloc.sh says why); none when the library is missing or
 * TRIBUTARY_MALLOC=glibc.
 */
export function jemallocPreload(env: NodeJS.ProcessEnv): string {
  const { LD_PRELOAD: own = '', TRIBUTARY_MALLOC: malloc = '' } = env;
  const key = `${malloc}\n${own}`;
  let preload = preloads.get(key);
  if (preload === undefined) {
    const scriptEnv = {
      PATH: env['PATH'] ?? process.env['PATH'] ?? '',
      ...(malloc ? { TRIBUTARY_MALLOC: malloc } : {}),
    };
    preload = execFileSync('bash', [JEMALLOC_SCRIPT, own], { env: scriptEnv, encoding: 'utf8' }).trim();
    preloads.set(key, preload);
  }
  return preload;
}

export interface LaunchOptions {
  /**
   * The child's whole environment (callers add `process.env` when the child should inherit it);
   * the test run's id (TRIBUTARY_TEST_RUN_ID) is always added, so a process a test started is
   * known as the run's even after its parent died.
   */
  env: NodeJS.ProcessEnv;
  /** Where stdout and stderr go (stdin is always the pipe that ties the child to this process). */
  stdout: 'pipe' | 'ignore' | 'inherit' | number;
  stderr: 'pipe' | 'ignore' | 'inherit' | number;
  /** Extra node flags (profiling: `--cpu-prof`); BENCH_NODE_ARGS adds its own. */
  nodeArgs?: readonly string[];
  /** Arguments after the script. */
  args?: readonly string[];
  /** The script is JavaScript that needs no tsx (an app's bundle): node runs it without the loader. */
  plain?: boolean;
}

/** Children still running; one exit listener kills them all (one per child tripped Node's listener limit). */
const running = new Set<ChildProcess>();
function killRunning(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * The one way tests, benches and the chaos and soak commands start a process of ours:
 * `node [flags] --import tsx --import exitWithParent.mjs <script>` in `cwd` (without tsx when
 * `plain`), on jemalloc
 * (jemallocPreload). The child never
 * outlives this process: it stops when its stdin pipe from here closes (exitWithParent.mjs),
 * which the kernel does when this process dies, even by SIGKILL; it is also SIGKILLed when this
 * process exits normally first.
 */
export function launchNode(cwd: string, script: string, opts: LaunchOptions): ChildProcess {
  const benchArgs = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const preload = jemallocPreload(opts.env);
  const child = spawn(
    process.execPath,
    [
      ...benchArgs,
      ...(opts.nodeArgs ?? []),
      ...(opts.plain ? [] : ['--import', 'tsx']),
      '--import',
      EXIT_WITH_PARENT,
      script,
      ...(opts.args ?? []),
    ],
    {
      cwd,
      env: { ...opts.env, ...(preload ? { LD_PRELOAD: preload } : {}), ...testRunMarker() },
      stdio: ['pipe', opts.stdout, opts.stderr],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!process.listeners('exit').includes(killRunning)) process.once('exit', killRunning);
  return child;
}

/** The variable that names the test run this process belongs to (globalSetup sets it), if any. */
function testRunMarker(): NodeJS.ProcessEnv {
  const runId = process.env[TEST_RUN_VARIABLE];
  return runId ? { [TEST_RUN_VARIABLE]: runId } : {};
}

/**
 * One service of ours, with the node flags it ships with (serviceNodeOptions: SERVICE_NODE_FLAGS,
 * then the caller's NODE_OPTIONS): from its source, `launchNode(apps/<app>, 'src/main.ts')`, or
 * with `from: 'bundle'` from the bundle its image runs, built first (buildAppBundle).
 */
export function launchApp(
  app: AppName,
  opts: Omit<LaunchOptions, 'plain'> & { from?: 'source' | 'bundle' },
): ChildProcess {
  const { from = 'source', ...launch } = opts;
  const nodeOptions = serviceNodeOptions(app, launch.env['NODE_OPTIONS']);
  const env = nodeOptions ? { ...launch.env, NODE_OPTIONS: nodeOptions } : launch.env;
  const cwd = join(REPO_ROOT, 'apps', app);
  return from === 'bundle'
    ? launchNode(cwd, buildAppBundle(app), { ...launch, env, plain: true })
    : launchNode(cwd, 'src/main.ts', { ...launch, env });
}
