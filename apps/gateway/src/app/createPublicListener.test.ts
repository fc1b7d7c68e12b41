import { type Server, createServer } from 'node:net';
import { freePort } from '@tributary/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createPublicListener } from './createPublicListener.ts';

const servers: Server[] = [];
const server = () => {
  const s = createServer((socket) => socket.end('hello'));
  servers.push(s);
  return s;
};
const hold = async (port: number) => {
  const holder = server();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  return holder;
};
const close = (s: Server) => new Promise((resolve) => s.close(resolve));
const errorOf = (check: () => void) => {
  try {
    check();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

afterEach(async () => {
  await Promise.all(
    servers
      .splice(0)
      .filter((s) => s.listening)
      .map(close),
  );
});

describe('createPublicListener', () => {
  it('is not ready until the server listens, then ready', async () => {
    const port = await freePort();
    const listener = createPublicListener({ host: '127.0.0.1', port, retryForMs: 5_000 });
    expect(errorOf(listener.check)).toBe(`not listening on 127.0.0.1:${port} yet`);
    const s = server();
    await expect(listener.listen(s)).resolves.toBe(true);
    expect(s.listening).toBe(true);
    expect(errorOf(listener.check)).toBeUndefined();
  });

  it('while another process holds the port: not ready, saying so, and listens once it is let go', async () => {
    const port = await freePort();
    const holder = await hold(port);
    const taken: number[] = [];
    const listener = createPublicListener({
      host: '127.0.0.1',
      port,
      retryForMs: 30_000,
      retryEveryMs: 50,
      onTaken: (attempt) => taken.push(attempt),
    });
    const s = server();
    const listening = listener.listen(s);
    while (taken.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(errorOf(listener.check)).toMatch(
      new RegExp(`^127\\.0\\.0\\.1:${port} is taken by another process; trying again every 50 ms until `),
    );
    await close(holder);
    await expect(listening).resolves.toBe(true);
    expect(errorOf(listener.check)).toBeUndefined();
    expect(s.address()).toMatchObject({ port });
    expect(taken.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('gives up when the port is still taken at the deadline, and says why', async () => {
    const port = await freePort();
    await hold(port);
    const listener = createPublicListener({ host: '127.0.0.1', port, retryForMs: 300, retryEveryMs: 50 });
    await expect(listener.listen(server())).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(errorOf(listener.check)).toBe(
      `cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
    );
  });

  it('does not wait out an error that waiting cannot mend (an address not on this host)', async () => {
    const taken: number[] = [];
    const listener = createPublicListener({
      host: '192.0.2.1',
      port: await freePort(),
      retryForMs: 30_000,
      onTaken: (attempt) => taken.push(attempt),
    });
    await expect(listener.listen(server())).rejects.toMatchObject({ code: 'EADDRNOTAVAIL' });
    expect(taken).toEqual([]);
    expect(errorOf(listener.check)).toMatch(/^cannot listen on 192\.0\.2\.1:\d+: listen EADDRNOTAVAIL/);
  });

  it('stops waiting when the service is asked to stop', async () => {
    const port = await freePort();
    await hold(port);
    const stop = new AbortController();
    const listener = createPublicListener({
      host: '127.0.0.1',
      port,
      retryForMs: 60_000,
      retryEveryMs: 50,
      signal: stop.signal,
      onTaken: () => stop.abort(),
    });
    // Not an error: the service is stopping, and its start-up must not go on as if it listened.
    await expect(listener.listen(server())).resolves.toBe(false);
    expect(errorOf(listener.check)).toBe(`stopped while waiting for 127.0.0.1:${port}`);
  });
});
