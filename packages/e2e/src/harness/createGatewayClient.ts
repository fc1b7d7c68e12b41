export interface GatewayResponse {
  status: number;
  /** The body exactly as sent. */
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are compared field by field
  body: any;
}

export interface GatewayClient {
  request(method: string, path: string, body?: unknown): Promise<GatewayResponse>;
  get(path: string, query?: Record<string, string | number>): Promise<GatewayResponse>;
  /** Follows `cursor` from the first page to the last (cursor ""). */
  getAllPages(path: string, query?: Record<string, string | number>): Promise<GatewayResponse[]>;
}

/** HTTP calls to a running gateway with the X-API-Key header, as any client makes them. */
export function createGatewayClient(baseUrl: string, apiKey: string): GatewayClient {
  const request = async (method: string, path: string, body?: unknown): Promise<GatewayResponse> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': apiKey,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const raw = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, raw, body: parsed };
  };
  const get = (path: string, query: Record<string, string | number> = {}) => {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return request('GET', qs ? `${path}?${qs}` : path);
  };
  return {
    request,
    get,
    async getAllPages(path, query = {}) {
      const pages: GatewayResponse[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await get(path, cursor ? { ...query, cursor } : query);
        pages.push(page);
        if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}: ${page.raw}`);
        cursor = page.body.cursor;
        if (!cursor) return pages;
        if (pages.length > 1000) throw new Error(`GET ${path}: more than 1000 pages`);
      }
    },
  };
}

/**
 * The transfer records of a page with `value` taken from the raw JSON text: a uint256 is a JSON
 * integer with every digit, which JSON.parse would round.
 */
export function transferRecords(page: GatewayResponse): Record<string, unknown>[] {
  const values = [...page.raw.matchAll(/"value":(-?\d+)[,}]/g)].map((m) => m[1]!);
  const result = page.body.result as Record<string, unknown>[];
  if (values.length !== result.length) {
    throw new Error(`expected ${result.length} "value":<integer> in the raw body, found ${values.length}`);
  }
  return result.map((r, i) => ({ ...r, value: values[i] }));
}
