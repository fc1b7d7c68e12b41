/** What came back for one request (the body as text, so that anything non-JSON shows). */
export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

const STACK_FRAME = /\n\s+at\s|\bat\s+\S+\s+\(\S+:\d+:\d+\)|node_modules|node:internal/;
const HTML = /<\s*(!doctype|html|head|body|pre|title)\b/i;

/**
 * Everything wrong with an answer by the gateway's rules: never a 5xx, always a JSON body, a
 * `message` on every error, never a stack trace or HTML. Empty when the answer is well formed.
 */
function answerProblems(answer: Answer, opts: { expectBody?: boolean } = {}): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (STACK_FRAME.test(answer.text)) problems.push('a stack trace in the body');
  if (HTML.test(answer.text)) problems.push('HTML in the body');
  if (opts.expectBody === false) return problems;
  if (!answer.contentType?.startsWith('application/json'))
    problems.push(`content-type ${answer.contentType ?? '(none)'}`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    problems.push(`a body that is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`);
    return problems;
  }
  if (answer.status >= 400) {
    const message = (body as { message?: unknown } | null)?.message;
    const ok =
      (typeof message === 'string' && message.length > 0) ||
      (Array.isArray(message) && message.length > 0 && message.every((m) => typeof m === 'string'));
    if (!ok) problems.push(`an error body without a message: ${answer.text.slice(0, 200)}`);
  }
  return problems;
}

/** Throws (failing the property) with the request and every problem of its answer. */
export function assertWellFormed(what: string, answer: Answer | undefined, opts?: { expectBody?: boolean }) {
  if (answer === undefined) return;
  const problems = answerProblems(answer, opts);
  if (problems.length > 0) {
    throw new Error(`${what.slice(0, 500)} answered ${answer.status}: ${problems.join('; ')}`);
  }
}
