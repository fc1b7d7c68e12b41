import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Health } from './createHealth.ts';
import { handleOpsRequest } from './opsHandlers.ts';

export interface OpsServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Health and metrics for services without an HTTP API of their own. */
export async function startOpsServer(opts: {
  host: string;
  port: number;
  health: Health;
  metrics: Registry;
}): Promise<OpsServer> {
  const server = createServer((req, res) => {
    if (!handleOpsRequest(req, res, opts)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not found' }));
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
