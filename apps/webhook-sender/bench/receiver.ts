import { createServer } from 'node:http';

/**
 * The benchmark's webhook receiver, in its own process on 127.0.0.1: `/ok/...` answers 200 at
 * once, `/hang/...` never answers (the sender's timeout ends it). `GET /__stats` gives the counts.
 * It listens on two ports, so that the hanging endpoint is another origin than the healthy ones,
 * as another tenant's receiver is (the sender bounds requests per origin); both serve every path.
 * Exits by itself after argv[2] seconds, whatever happens to the benchmark.
 */
const maxSeconds = Number(process.argv[2] ?? 600);
let ok = 0;
let hang = 0;
const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok, hang, at: Date.now() }));
    return;
  }
  req.resume();
  if (req.url?.startsWith('/hang')) {
    hang++;
    return;
  }
  req.on('end', () => {
    ok++;
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
const hangServer = createServer(server.listeners('request')[0] as Parameters<typeof createServer>[0]);
const portOf = (s: typeof server) => {
  const address = s.address();
  return typeof address === 'object' && address ? address.port : 0;
};
server.listen(0, '127.0.0.1', () => {
  hangServer.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: portOf(server), hangPort: portOf(hangServer) })}\n`);
  });
});
const stop = () => {
  for (const s of [server, hangServer]) {
    s.closeAllConnections();
    s.close();
  }
  process.exit(0);
};
process.on('SIGTERM', stop);
setTimeout(stop, maxSeconds * 1000).unref();
