/**
 * JSON text that stringifyJson writes as it is: a part of a body already serialised (a page's
 * records), so it is not walked again. Only for text produced by our own serialisers.
 */
export class RawJson {
  constructor(readonly json: string) {}
}

/** A JSON array of already-serialised items. */
export function rawJsonArray(items: readonly string[]): RawJson {
  return new RawJson(`[${items.join(',')}]`);
}
