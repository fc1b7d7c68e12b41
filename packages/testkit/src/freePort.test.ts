import { spawn } from 'node:child_process';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, listenerRange } from './freePort.ts';
import { REPO_ROOT } from './repoRoot.ts';

// A port handed out for a server started (or restarted) later must not be one the kernel may give
// to an outgoing connection meanwhile: the server's bind would then fail with EADDRINUSE.
let server: Server;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => socket.on('error', () => undefined));
  port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('freePort', () => {
  it('draws from ports no outgoing connection is given', async () => {
    const [low, high] = listenerRange();
    expect(high - low).toBeGreaterThanOrEqual(1_000);
    // The kernel's choices for outgoing connections: none falls where freePort draws.
    const localPorts = await Promise.all(
      Array.from(
        { length: 300 },
        () =>
          new Promise<number>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket.localPort!));
            socket.once('error', reject);
            sockets.push(socket);
          }),
      ),
    );
    expect(localPorts.filter((p) => p >= low && p < high)).toEqual([]);

    const drawn = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const p of drawn) expect(p >= low && p < high, `port ${p} in ${low}-${high - 1}`).toBe(true);
  });

  it('gives a port a server can then listen on, and not one that is taken', async () => {
    const p = await freePort();
    const listener = createServer();
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(p, '127.0.0.1', resolve);
    });
    try {
      const others = await Promise.all(Array.from({ length: 50 }, () => freePort()));
      expect(others).not.toContain(p);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('never gives a port that another living process drew, before its server listens on it', async () => {
    // Another test process draws 300 ports and starts nothing on them yet (a service still booting).
    const script = `
      import { freePort } from ${JSON.stringify(fileURLToPath(new URL('./freePort.ts', import.meta.url)))};
      const ports = [];
      for (let i = 0; i < 300; i++) ports.push(await freePort());
      console.log(JSON.stringify(ports));
      process.stdin.resume();
    `;
    const other = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      const theirs = await new Promise<number[]>((resolve, reject) => {
        let out = '';
        other.stdout.on('data', (chunk) => {
          out += String(chunk);
          if (out.includes('\n')) resolve(JSON.parse(out));
        });
        other.once('exit', (code) => reject(new Error(`the other process exited with ${code}`)));
      });
      expect(new Set(theirs).size).toBe(300);
      // Drawn at random from 12,000 ports, 300 against 300 would meet about 7 times.
      const ours = new Set<number>();
      for (let i = 0; i < 300; i++) ours.add(await freePort());
      expect(ours.size).toBe(300);
      expect(theirs.filter((p) => ours.has(p))).toEqual([]);
    } finally {
      other.kill('SIGKILL');
    }
  });
});
