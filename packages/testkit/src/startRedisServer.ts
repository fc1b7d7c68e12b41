import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './freePort.ts';

export interface RedisServer {
  url: string;
  port: number;
  /** SIGKILLs the server (a crash: nothing flushed) and resolves once it is gone. */
  kill(): Promise<void>;
}

// The shell keeps the server for as long as its stdin stays open: the test's kill() closes it, and
// so does the kernel when the test process dies, even by SIGKILL. The server never outlives the test.
const WATCH = `redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
pid=$!
read -r _ || true
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exit 0`;

/**
 * A Redis of a test's own (Debian's redis-server, nothing persisted) on a free port (or `port`,
 * for a Redis that comes up where a service already looks for it), for tests that take Redis
 * away; the run's shared Redis is never stopped.
 */
export async function startRedisServer(opts: { port?: number } = {}): Promise<RedisServer> {
  const port = opts.port ?? (await freePort());
  const child = spawn('sh', ['-c', WATCH, 'sh', String(port)], { stdio: ['pipe', 'ignore', 'ignore'] });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let gone = false;
  void closed.then(() => {
    gone = true;
  });
  const kill = async () => {
    child.stdin?.end();
    await closed;
  };
  for (;;) {
    if (gone) throw new Error(`redis-server did not start on port ${port} (is it installed?)`);
    if (await answersPing(port)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url: `redis://127.0.0.1:${port}`, port, kill };
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
  });
}
