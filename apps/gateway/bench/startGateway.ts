// Starts the real gateway (src/main.ts) as a child process on a free port and waits for /readyz.
import type { ChildProcess } from 'node:child_process';
import { sleep } from '@tributary/runtime';
import { freePort, launchApp } from '@tributary/testkit/bench';

export interface RunningGateway {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startGateway(env: Record<string, string | undefined>): Promise<RunningGateway> {
  const port = await freePort();
  // BENCH_GATEWAY_NODE_ARGS: extra node flags for the gateway, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env['BENCH_GATEWAY_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const child = launchApp('gateway', {
    nodeArgs,
    // OPS_PORT 0: its metrics port chosen by the system, so that gateways side by side do not collide.
    env: { OPS_PORT: '0', ...process.env, ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}): ${stderr}`);
    const ready = await fetch(`${url}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway not ready after 60 s: ${stderr}`);
    }
    await sleep(250);
  }
  return {
    url,
    pid: child.pid as number,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
