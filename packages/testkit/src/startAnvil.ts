import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ANVIL_CHAIN_ID, ANVIL_MAX_PERSISTED_STATES, ANVIL_MNEMONIC } from './anvilDefaults.ts';
import { REPO_ROOT } from './repoRoot.ts';
import { freePort } from './freePort.ts';

export interface StartAnvilOptions {
  /** Mine a block per transaction (anvil's default). */
  automine?: boolean;
  /** Seconds between blocks; when set, interval mining replaces automine. */
  blockTime?: number;
  chainId?: number;
  /** Past blocks' states kept on disk beyond memory (ANVIL_MAX_PERSISTED_STATES). */
  maxPersistedStates?: number;
  /** Extra anvil flags, e.g. ['--fork-url', url]. */
  args?: string[];
}

export interface StartedAnvil {
  rpcUrl: string;
  port: number;
  /** Where it writes past blocks' states; removed by stop(). */
  statesDir: string;
  stop: () => Promise<void>;
}

/**
 * A private anvil on a free loopback port, for tests that control mining themselves. The states it
 * writes to disk go to a directory of its own, removed when it stops (anvil leaves its default one,
 * under ~/.foundry, behind).
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<StartedAnvil> {
  const binary = resolveAnvilBinary();
  const states = mkdtempSync(join(tmpdir(), 'tributary-anvil-states-'));
  const removeStates = () => rmSync(states, { recursive: true, force: true });
  let lastError: unknown;
  // Another process may grab the free port between the probe and anvil's bind: retry on a new one.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const args = [
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--chain-id',
      String(options.chainId ?? ANVIL_CHAIN_ID),
      '--mnemonic',
      ANVIL_MNEMONIC,
      '--silent',
      '--cache-path',
      states,
      '--max-persisted-states',
      String(options.maxPersistedStates ?? ANVIL_MAX_PERSISTED_STATES),
    ];
    if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
    else if (options.automine === false) args.push('--no-mining');
    args.push(...(options.args ?? []));
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const rpcUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForRpc(rpcUrl, child, () => stderr);
      return { rpcUrl, port, statesDir: states, stop: () => stopChild(child).then(removeStates) };
    } catch (error) {
      lastError = error;
      await stopChild(child);
    }
  }
  removeStates();
  throw lastError;
}

/** The native anvil binary that the root devDependency @foundry-rs/anvil installed for this platform. */
function resolveAnvilBinary(): string {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const fromRoot = createRequire(join(REPO_ROOT, 'package.json'));
  const fromWrapper = createRequire(fromRoot.resolve('@foundry-rs/anvil/package.json'));
  const binary = join(dirname(fromWrapper.resolve(`${platformPackage}/package.json`)), 'bin', 'anvil');
  if (!existsSync(binary)) throw new Error(`anvil binary missing at ${binary}: run pnpm install`);
  return binary;
}

async function waitForRpc(rpcUrl: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr()}`);
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`anvil did not answer on ${rpcUrl} within 20s: ${stderr()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
