import type { Answer } from './answerProblems.ts';

/** Fuzzed requests fail the property when the gateway takes longer than this to answer. */
export const ANSWER_TIMEOUT_MS = 5_000;

/**
 * One request over fetch, its answer read whole within ANSWER_TIMEOUT_MS (a hang is a failure,
 * reported as such). Undefined when fetch itself refuses the request (a URL or header it cannot
 * send), which says nothing about the gateway.
 */
export async function fetchAnswer(url: string, init: RequestInit): Promise<Answer | undefined> {
  let request: Request;
  try {
    request = new Request(url, init);
  } catch {
    return undefined;
  }
  const signal = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
  try {
    const res = await fetch(request, { signal });
    return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
  } catch (err) {
    // undici refuses some header values (an empty or odd accept) before sending anything.
    if ((err as { cause?: { code?: string } }).cause?.code === 'UND_ERR_INVALID_ARG') return undefined;
    if (signal.aborted)
      throw new Error(
        `no answer within ${ANSWER_TIMEOUT_MS} ms: ${init.method ?? 'GET'} ${url.slice(0, 300)}`,
      );
    throw err;
  }
}
