// The local devnet's webhook receiver, written like a customer's would be: it verifies each
// webhook's x-signature (keccak256 of the body bytes + the account secret) and prints one line each.
// Usage: node --import tsx src/demoReceiverCli.ts <port> <secret>
import { createServer } from 'node:http';
import { keccak256, toHex } from 'viem';

const [port = '8099', secret = ''] = process.argv.slice(2);
let received = 0;

function summarise(body: string): Record<string, unknown> {
  try {
    const b = JSON.parse(body);
    return {
      streamId: b.streamId,
      tag: b.tag,
      chainId: b.chainId,
      block: b.block?.number,
      confirmed: b.confirmed,
      logs: b.logs?.length,
      erc20Transfers: b.erc20Transfers?.length,
      retries: b.retries,
    };
  } catch {
    return { error: 'body is not JSON' };
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const signatureValid = req.headers['x-signature'] === keccak256(toHex(body + secret));
    received += 1;
    console.log(JSON.stringify({ msg: 'webhook', n: received, signatureValid, ...summarise(body) }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.listen(Number(port), '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'demo receiver listening', url: `http://127.0.0.1:${port}/webhook` }));
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => server.close(() => process.exit(0)));
