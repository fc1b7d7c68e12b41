#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ListenRefusedError, listen } from '../listen.ts';

// `pnpm listen --stream <id> --forward-to http://127.0.0.1:3000/webhook`: the stream's webhooks,
// signed, forwarded to a local receiver. TRIBUTARY_API_KEY is the key; TRIBUTARY_API_URL the
// gateway (the local one by default).
const USAGE =
  'usage: pnpm listen --stream <stream id> --forward-to <url>   (env: TRIBUTARY_API_KEY, TRIBUTARY_API_URL)';

function fail(message: string): never {
  console.error(`listen: ${message}\n${USAGE}`);
  process.exit(2);
}

let args: { stream?: string | undefined; 'forward-to'?: string | undefined };
try {
  ({ values: args } = parseArgs({
    options: { stream: { type: 'string' }, 'forward-to': { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const apiKey = process.env['TRIBUTARY_API_KEY'];
const apiUrl = process.env['TRIBUTARY_API_URL'] || 'http://127.0.0.1:8080';
if (!args.stream) fail('--stream is required');
if (!args['forward-to']) fail('--forward-to is required');
if (!URL.canParse(args['forward-to'])) fail(`--forward-to ${args['forward-to']} is not a URL`);
if (!URL.canParse(apiUrl)) fail(`TRIBUTARY_API_URL ${apiUrl} is not a URL`);
if (!apiKey) fail('TRIBUTARY_API_KEY is not set');

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());
try {
  await listen({
    apiUrl,
    apiKey,
    streamId: args.stream,
    forwardTo: args['forward-to'],
    print: (line) => console.log(`${new Date().toISOString()} ${line}`),
    signal: stop.signal,
  });
} catch (err) {
  console.error(`listen: ${err instanceof ListenRefusedError ? err.message : String(err)}`);
  process.exit(1);
}
