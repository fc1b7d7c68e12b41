import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertWellFormed } from '../testing/answerProblems.ts';
import { fuzzParameters } from '../testing/fuzzParameters.ts';
import { contentType, hostileText, segment } from '../testing/hostileInputs.ts';
import { parseResponses, rawRequest } from '../testing/rawRequest.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

// Hostile bytes on the wire, where fetch would refuse or repair them: odd request lines, raw
// unicode in the target, odd or missing X-API-Key, content-length that disagrees with the body,
// content-length with chunked encoding. Every answer is well-formed JSON; none is late.

let gw: TestGateway;
let port: number;

beforeAll(async () => {
  gw = await startTestGateway({ streams: true });
  port = Number(new URL(gw.baseUrl).port);
});

afterAll(async () => {
  await gw?.close();
});

const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

function target() {
  const id = segment([ADDRESS, '00000000-0000-0000-0000-000000000000']);
  return fc.oneof(
    id.map((a) => `/api/v2.2/${a}/erc20/transfers`),
    id.map((a) => `/api/v2.2/erc20/${a}/owners`),
    id.map((a) => `/api/v2.2/${a}/logs?topic0=${'0'.repeat(64)}`),
    id.map((s) => `/streams/evm/${s}`),
    id.map((s) => `/streams/evm/${s}/address`),
    fc.constantFrom(
      '/streams/evm?limit=1',
      '/history?limit=1',
      '/stats',
      '/settings',
      '*',
      '',
      'http://x/stats',
    ),
    hostileText.map((t) => `/${t}`),
  );
}

/** Mostly `fitting`, sometimes one of `odd`: a request broken in one place or two, not in all. */
function mostly<T>(fitting: readonly T[], odd: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...fitting), weight: 6 },
    { arbitrary: fc.constantFrom(...odd), weight: 1 },
  );
}

function request(key: string) {
  return fc.record({
    method: mostly(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], ['get', 'G\u00c9T', 'CONNECT']),
    target: target(),
    version: mostly(['HTTP/1.1'], ['HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 x', '']),
    key: mostly<string | undefined>([key], [undefined, '', ' ', 'trb_\u00ff', `${key}, ${key}`]),
    // Mostly JSON, so that the body parser reads (or waits for) the body.
    contentType: fc.oneof(
      { arbitrary: fc.constant<string | undefined>('application/json'), weight: 3 },
      { arbitrary: fc.option(contentType, { nil: undefined }), weight: 2 },
    ),
    body: fc.constantFrom(
      '',
      '{}',
      '{"secretKey":"secret-key-123"}',
      `{"address":"${ADDRESS}"}`,
      '{"status":"paused"',
      '\u00e9\u00ff',
    ),
    // How the declared length relates to the body: equal, shorter, longer, odd, or chunked too.
    framing: mostly(
      ['exact'],
      ['shorter', 'longer', 'longer', 'negative', 'text', 'twice', 'chunked+length', 'none'],
    ),
    extra: fc.oneof(
      { arbitrary: fc.constant([]), weight: 3 },
      {
        arbitrary: fc.array(
          fc.constantFrom(
            'x-a: b',
            'host: other',
            ' folded',
            'x-\u00e9: 1',
            'a:',
            ':b',
            'upgrade: websocket',
          ),
          {
            minLength: 1,
            maxLength: 2,
          },
        ),
        weight: 1,
      },
    ),
  });
}

function encode(r: {
  method: string;
  target: string;
  version: string;
  key: string | undefined;
  contentType: string | undefined;
  body: string;
  framing: string;
  extra: readonly string[];
}): Buffer {
  const body = Buffer.from(r.body, 'utf8');
  const lines = [`${r.method} ${r.target} ${r.version}`.trimEnd(), 'host: 127.0.0.1', 'connection: close'];
  if (r.key !== undefined) lines.push(`x-api-key: ${r.key}`);
  if (r.contentType !== undefined) lines.push(`content-type: ${r.contentType}`);
  const length = {
    exact: [`content-length: ${body.length}`],
    shorter: [`content-length: ${Math.max(0, body.length - 3)}`],
    longer: [`content-length: ${body.length + 10}`],
    negative: ['content-length: -1'],
    text: ['content-length: ten'],
    twice: [`content-length: ${body.length}`, `content-length: ${body.length + 1}`],
    'chunked+length': [`content-length: ${body.length}`, 'transfer-encoding: chunked'],
    none: [],
  }[r.framing];
  lines.push(...(length ?? []), ...r.extra);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

describe('the HTTP server under hostile bytes', () => {
  it('answers every request with well-formed JSON, a body that never arrives with a 408', async () => {
    await fc.assert(
      fc.asyncProperty(request(gw.apiKey.key), async (r) => {
        const raw = encode(r);
        const what = JSON.stringify(raw.toString('latin1').slice(0, 400));
        const answers = parseResponses(await rawRequest(port, raw));
        if (typeof answers === 'string') throw new Error(`${what}: ${answers}`);
        if (answers.length === 0) throw new Error(`${what}: closed without an answer`);
        for (const answer of answers) assertWellFormed(what, answer);
      }),
      fuzzParameters(300),
    );
  });
});
