import { type Server, type Socket, connect, createServer } from 'node:net';

export interface RedisCutProxy {
  url: string;
  /** Connections cut so far (each at its second INFO). */
  cuts(): number;
  /** Milliseconds since the window closed (negative while it is open or before any connection). */
  sinceWindow(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of Redis that, for `windowMs` after its first connection, cuts every connection when
 * the client sends its second INFO: the first is ioredis's ready check, the second BullMQ's version
 * check, so the cut lands inside BullMQ's connection set-up, as when Redis dies while a service
 * starts. From the first cut to the window's end the port is closed (reconnects are refused). After
 * the window, bytes pass untouched.
 */
export async function startRedisCutProxy(opts: { target: string; windowMs: number }): Promise<RedisCutProxy> {
  const target = new URL(opts.target);
  // The window opens with the first connection: a service slow to start (a loaded machine) still
  // meets it.
  let started: number | undefined;
  const inWindow = () => started === undefined || Date.now() - started < opts.windowMs;
  const sockets = new Set<Socket>();
  let cuts = 0;
  let port = 0;
  let reopening: NodeJS.Timeout | undefined;
  // The first cut closes the port until the window ends: reconnects are refused (ECONNREFUSED),
  // as from a Redis that is down, and not accepted then dropped.
  const refuseUntilWindowEnds = () => {
    if (reopening !== undefined || !server.listening) return;
    server.close();
    reopening = setTimeout(
      () => server.listen(port, '127.0.0.1'),
      Math.max(0, opts.windowMs - (Date.now() - (started ?? Date.now()))),
    );
  };
  const server: Server = createServer((client) => {
    started ??= Date.now();
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let infos = 0;
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (inWindow()) {
        infos += countInfo(chunk);
        if (infos >= 2) {
          cuts += 1;
          drop();
          refuseUntilWindowEnds();
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  port = address.port;
  return {
    url: `redis://127.0.0.1:${port}`,
    cuts: () => cuts,
    sinceWindow: () => (started === undefined ? -1 : Date.now() - started - opts.windowMs),
    close: async () => {
      clearTimeout(reopening);
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** INFO commands in a chunk of RESP (`*1\r\n$4\r\ninfo\r\n`, any case). */
function countInfo(chunk: Buffer): number {
  return chunk.toString('latin1').match(/\$4\r\ninfo\r\n/gi)?.length ?? 0;
}
