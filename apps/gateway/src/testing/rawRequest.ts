import { connect } from 'node:net';
import type { Answer } from './answerProblems.ts';
import { ANSWER_TIMEOUT_MS } from './fetchAnswer.ts';

/** Splits what a server sent on one connection into its HTTP responses (or says what is wrong). */
export function parseResponses(raw: Buffer): Answer[] | string {
  const answers: Answer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0)
      return `an incomplete response head: ${JSON.stringify(rest.toString('latin1').slice(0, 200))}`;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
    if (status === undefined) return `not a status line: ${JSON.stringify(statusLine.slice(0, 200))}`;
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const declared = headers.get('content-length');
    if (declared === undefined) {
      if (headers.has('transfer-encoding')) return `a chunked response: ${statusLine}`;
      // Delimited by the close (Node answers so to a request of another HTTP version).
      answers.push({
        status: Number(status),
        contentType: headers.get('content-type') ?? null,
        text: rest.subarray(end + 4).toString('utf8'),
      });
      return answers;
    }
    const length = Number(declared);
    const body = rest.subarray(end + 4, end + 4 + length);
    if (body.length < length) return `a body cut short (${body.length} of ${length} bytes)`;
    answers.push({
      status: Number(status),
      contentType: headers.get('content-type') ?? null,
      text: body.toString('utf8'),
    });
    rest = rest.subarray(end + 4 + length);
  }
  return answers;
}

/**
 * Writes exactly `request` on a new connection and collects everything the server sends until it
 * closes (send `connection: close`); a server that does not close within ANSWER_TIMEOUT_MS is a
 * hang (thrown). The sending side stays open: Node drops the answer to a client that half-closes.
 * For what fetch will not send: malformed request lines and headers, content-length that
 * disagrees with the body.
 */
export function rawRequest(port: number, request: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no answer within ${ANSWER_TIMEOUT_MS} ms to ${JSON.stringify(request.toString('latin1').slice(0, 300))}`,
        ),
      );
    }, ANSWER_TIMEOUT_MS);
    socket.on('data', (c: Buffer) => chunks.push(c));
    // A reset after the server answered (it closes while we still send) keeps what arrived.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(request);
  });
}
