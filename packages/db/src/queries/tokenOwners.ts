import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { statementName } from './statementName.ts';
import { Params, type SortOrder } from './keyset.ts';
import { linesAggSql, pageLines } from './recordLines.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** Keyset position in the owners order: (balance, owner address). */
interface OwnerPosition {
  balance: bigint;
  ownerAddress: string;
}

export interface TokenOwnersQuery {
  chainId: number;
  token: string;
  /** DESC: largest balance first, ties by owner address ascending; ASC is the exact reverse. */
  order: SortOrder;
  limit: number;
  after?: OwnerPosition;
}

/**
 * One holder of a page, as PostgreSQL wrote it: the keyset position, and the API's owner record
 * (spec 2.4) but for its last member, `percentage_relative_to_total_supply`, which is a JSON
 * number as JavaScript writes it: the caller adds it from `percentScaled`.
 */
export interface TokenOwnerRecord {
  ownerAddress: string;
  /** Raw balance, decimal digits. */
  balance: string;
  /**
   * balance * 10^20 / total supply, truncated, as decimal digits (the percentage with 18 decimal
   * places, times 10^18); null when the supply is unknown or not positive.
   */
  percentScaled: string | null;
  /** `"owner_address":"0x…",…,"is_contract":false`: the record's members without braces, in the spec's order. */
  members: string;
}

/**
 * The last supply check found that the chain's totalSupply() differs from the supply the token's
 * Transfer events add up to (a rebasing or fee-on-transfer token): its balances are not exact.
 */
interface SupplyMismatch {
  /** Decimal digits: the projected block the check read totalSupply() at. */
  blockNumber: string;
  /** Decimal digits: totalSupply() at that block. */
  chainTotalSupply: string;
}

/**
 * One holder as a line of text: `balance,owner hex,percent scaled,` then its JSON members (see
 * TokenOwnerRecord). balance_formatted is the balance times 10^-decimals (`t.unit`; an exact
 * product: dividing would round to the quotient's default scale) without trailing zeros.
 */
const OWNER_LINE = `balance || ',' || encode(owner_address, 'hex') || ','
  || coalesce(CASE WHEN t.total_supply > 0 THEN div(balance * 100000000000000000000, t.total_supply)::text END, '')
  || ',"owner_address":"0x' || encode(owner_address, 'hex')
  || '","owner_address_label":' || coalesce(l.label_json, 'null')
  || ',"balance":"' || balance
  || '","balance_formatted":' || coalesce('"' || trim_scale(balance * t.unit) || '"', 'null')
  || ',"usd_value":null,"is_contract":' || CASE WHEN k.is_contract THEN 'true' ELSE 'false' END`;

/**
 * One page of a token's holders (non-zero balances) from balances_by_token, and the token's total
 * supply (decimal digits; null when the token or its supply is unknown), in one statement (one
 * round trip, one snapshot: the total supply matches the balances). The keyset condition mixes
 * directions (balance DESC, owner ASC), so it is split into two index range scans: the rest of the
 * boundary balance, then the balances past it. The page
 * comes back as one text value, a line per holder (OWNER_LINE), as the other data pages do.
 */
export async function findTokenOwners(
  db: Queryable,
  q: TokenOwnersQuery,
): Promise<{
  totalSupply: string | null;
  supplyMismatch: SupplyMismatch | null;
  records: TokenOwnerRecord[];
  hasMore: boolean;
}> {
  const p = new Params();
  const chain = p.add(q.chainId);
  const token = p.add(hexToBytes(q.token));
  const n = p.add(q.limit + 1);
  const desc = q.order === 'DESC';
  const ord = desc ? 'balance DESC, owner_address ASC' : 'balance ASC, owner_address DESC';
  const base = `SELECT owner_address, balance FROM balances
                 WHERE chain_id = ${chain} AND token_address = ${token} AND balance <> 0`;
  let page: string;
  if (q.after) {
    const b = p.add(q.after.balance.toString());
    const o = p.add(hexToBytes(q.after.ownerAddress));
    page = `(${base} AND balance = ${b}::numeric AND owner_address ${desc ? '>' : '<'} ${o} ORDER BY ${ord} LIMIT ${n})
            UNION ALL
            (${base} AND balance ${desc ? '<' : '>'} ${b}::numeric ORDER BY ${ord} LIMIT ${n})
            ORDER BY ${ord} LIMIT ${n}`;
  } else {
    page = `${base} ORDER BY ${ord} LIMIT ${n}`;
  }
  // unit: 10^-decimals, read once per page.
  const sql = `WITH tok AS MATERIALIZED (
       SELECT total_supply, ('1e-' || decimals)::numeric AS unit, supply_mismatch, supply_checked_block,
              chain_total_supply
         FROM tokens WHERE chain_id = ${chain} AND address = ${token}),
     page AS (${page})
     SELECT (SELECT count(*) FROM page)::int AS fetched,
            (SELECT ${linesAggSql(OWNER_LINE, ord)}
               FROM page
               LEFT JOIN tok t ON true
               LEFT JOIN address_labels l ON l.chain_id = ${chain} AND l.address = page.owner_address
               LEFT JOIN address_kinds k ON k.chain_id = ${chain} AND k.address = page.owner_address
            ) AS records,
            (SELECT total_supply::text FROM tok) AS total_supply,
            (SELECT CASE WHEN supply_mismatch THEN supply_checked_block::text || ',' || chain_total_supply::text END
               FROM tok) AS mismatch`;
  const { rows } = await db.query<{
    fetched: number;
    records: string | null;
    total_supply: string | null;
    mismatch: string | null;
  }>({ name: statementName('token_owners', sql), text: sql, values: p.values });
  const r = rows[0];
  return {
    totalSupply: r?.total_supply ?? null,
    supplyMismatch: parseMismatch(r?.mismatch ?? null),
    records: pageLines(r?.records).slice(0, q.limit).map(parseOwnerLine),
    hasMore: (r?.fetched ?? 0) > q.limit,
  };
}

function parseMismatch(text: string | null): SupplyMismatch | null {
  if (text === null) return null;
  const [block, supply] = text.split(',');
  return { blockNumber: block!, chainTotalSupply: supply! };
}

function parseOwnerLine(line: string): TokenOwnerRecord {
  const a = line.indexOf(',');
  const b = a + 41;
  const c = line.indexOf(',', b + 1);
  const percent = line.slice(b + 1, c);
  return {
    balance: line.slice(0, a),
    ownerAddress: `0x${line.slice(a + 1, b)}`,
    percentScaled: percent === '' ? null : percent,
    members: line.slice(c + 1),
  };
}
