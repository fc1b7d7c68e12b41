// Request URLs for the load run, rotating over realistic parameters: wallets and tokens drawn
// with the dataset's own skew (whales and large tokens are asked for most), with and without
// contract filters, both orders, several page sizes, and later pages reached through cursors
// taken from earlier responses (a cursor is bound to its query, so the page-1 path is kept).
import {
  APPROVAL_TOPIC0,
  FIRST_BLOCK,
  TRANSFER_TOPIC0,
  type SeedParams,
  tokenAddress,
  walletAddress,
  zipfRank,
} from './datasetShape.ts';

const CURSOR_FIELD = Buffer.from('"cursor":"');

export type EndpointName = 'transfers' | 'logs' | 'owners';

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const chance = (p: number) => Math.random() < p;
const uniformRank = (n: number) => 1 + Math.floor(Math.random() * (n - 1));

/** Page sizes: the default (no limit, 100) most often, as the SDK sends when none is given. */
function limitParam(): string | undefined {
  return pick([undefined, undefined, undefined, '100', '50', '25', '25', '10', '10', '10']);
}

function chainParam(): string | undefined {
  return pick([undefined, undefined, 'eth', '0x1']);
}

function query(params: Record<string, string | string[] | undefined>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(v)}`);
    }
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function transfersPath(p: SeedParams): string {
  // Traffic follows activity (whales are asked for most), plus a uniform long tail.
  const wallet = walletAddress(chance(0.7) ? zipfRank(p.wallets) : uniformRank(p.wallets));
  const lastBlock = p.firstBlock + Math.ceil(p.rows / p.transfersPerBlock) - 1;
  const contracts = chance(0.25)
    ? Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => tokenAddress(zipfRank(p.tokens)))
    : undefined;
  return `/api/v2.2/${wallet}/erc20/transfers${query({
    chain: chainParam(),
    'contract_addresses[]': contracts,
    from_block: chance(0.1) ? String(lastBlock - Math.floor(Math.random() * 50_000)) : undefined,
    order: chance(0.2) ? 'ASC' : undefined,
    limit: limitParam(),
  })}`;
}

function logsPath(p: SeedParams): string {
  const token = tokenAddress(chance(0.8) ? zipfRank(p.tokens) : uniformRank(p.tokens));
  const lastBlock = FIRST_BLOCK + Math.ceil(p.rows / p.transfersPerBlock) - 1;
  const range = Math.random();
  return `/api/v2.2/${token}/logs${query({
    chain: chainParam(),
    topic0: chance(0.9) ? TRANSFER_TOPIC0 : APPROVAL_TOPIC0,
    from_block: range < 0.4 ? String(lastBlock - Math.floor(Math.random() * 50_000)) : undefined,
    block_number:
      range >= 0.4 && range < 0.6 ? String(lastBlock - Math.floor(Math.random() * 100_000)) : undefined,
    order: chance(0.2) ? 'ASC' : undefined,
    limit: limitParam(),
  })}`;
}

function ownersPath(p: SeedParams): string {
  const token = tokenAddress(chance(0.7) ? zipfRank(p.tokens) : uniformRank(p.tokens));
  return `/api/v2.2/erc20/${token}/owners${query({
    chain: chainParam(),
    order: chance(0.15) ? 'ASC' : undefined,
    limit: limitParam(),
  })}`;
}

export const PATHS: Record<EndpointName, (p: SeedParams) => string> = {
  transfers: transfersPath,
  logs: logsPath,
  owners: ownersPath,
};

/**
 * Hands out request paths: a fresh page-1 path, or (share `cursorShare`) the next page of a
 * query answered earlier. Cursors are read from the response bytes without decoding or parsing the body.
 */
export class RequestMix {
  private readonly cursors: string[] = [];
  private readonly fresh: string[];
  private next = 0;
  pagesRequested = 0;

  constructor(
    endpoint: EndpointName,
    params: SeedParams,
    private readonly cursorShare = 0.2,
    pool = 20_000,
  ) {
    this.fresh = Array.from({ length: pool }, () => PATHS[endpoint](params));
  }

  path(): string {
    if (this.cursors.length > 0 && chance(this.cursorShare)) {
      this.pagesRequested++;
      return this.cursors.splice(Math.floor(Math.random() * this.cursors.length), 1)[0] as string;
    }
    const path = this.fresh[this.next % this.fresh.length] as string;
    this.next++;
    return path;
  }

  /** Keeps the next-page path of a response (bounded; the oldest are dropped). */
  observe(path: string, body: Buffer): void {
    const at = body.indexOf(CURSOR_FIELD);
    if (at < 0) return;
    const start = at + CURSOR_FIELD.length;
    const end = body.indexOf(0x22, start);
    if (end <= start) return;
    if (this.cursors.length >= 2_000) this.cursors.shift();
    const base = path.replace(/[?&]cursor=[^&]*/, '');
    const sep = base.includes('?') ? '&' : '?';
    this.cursors.push(`${base}${sep}cursor=${encodeURIComponent(body.toString('latin1', start, end))}`);
  }
}
