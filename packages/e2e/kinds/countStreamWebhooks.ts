/** What the receiver wrote down of one webhook (the ledger's record satisfies it). */
export interface ArrivedWebhook {
  webhookId: string;
  streamId: string;
  blockHash: string;
  blockNumber: number;
  confirmed: boolean;
  /** A removal notice (`"removed": true`). */
  removed: boolean;
  signatureValid: boolean;
  items: string[];
}

/** A stream of a run, as the count needs it. */
export interface CountedStream {
  id: string;
  label: string;
  notifyRemovals: boolean;
  /** Blocks after this one are due (its calls had answered when the chain was here). */
  fromBlock: number;
  /** Its start block: blocks after it and up to `fromBlock` may come or not; blocks up to it never. */
  startBlock: number;
}

export interface WebhookCounts {
  /** Webhooks due: unconfirmed and confirmed per canonical block with items, and removal notices. */
  expected: number;
  delivered: number;
  lost: number;
  /** Arrivals beyond the first of one (block, unconfirmed / confirmed / removal). */
  duplicated: number;
  /** Of those, arrivals under another webhook-id than the first (a receiver cannot de-duplicate them). */
  duplicatesWithNewId: number;
  /** Arrivals owed by nothing: a block before the stream, one with nothing for it, a confirmed orphan, an unknown block. */
  unexpected: number;
  badSignatures: number;
  /** Removal notices among `expected` / `delivered`. */
  notices: { expected: number; delivered: number };
  /** Items of the webhooks that arrived: expected, missing from them, or there but owed by nothing (a wrong value is both). */
  items: { expected: number; missing: number; extra: number };
  lostSample: string[];
  itemSample: string[];
}

export const emptyCounts = (): WebhookCounts => ({
  expected: 0,
  delivered: 0,
  lost: 0,
  duplicated: 0,
  duplicatesWithNewId: 0,
  unexpected: 0,
  badSignatures: 0,
  notices: { expected: 0, delivered: 0 },
  items: { expected: 0, missing: 0, extra: 0 },
  lostSample: [],
  itemSample: [],
});

export function addCounts(a: WebhookCounts, b: WebhookCounts): WebhookCounts {
  return {
    expected: a.expected + b.expected,
    delivered: a.delivered + b.delivered,
    lost: a.lost + b.lost,
    duplicated: a.duplicated + b.duplicated,
    duplicatesWithNewId: a.duplicatesWithNewId + b.duplicatesWithNewId,
    unexpected: a.unexpected + b.unexpected,
    badSignatures: a.badSignatures + b.badSignatures,
    notices: {
      expected: a.notices.expected + b.notices.expected,
      delivered: a.notices.delivered + b.notices.delivered,
    },
    items: {
      expected: a.items.expected + b.items.expected,
      missing: a.items.missing + b.items.missing,
      extra: a.items.extra + b.items.extra,
    },
    lostSample: [...a.lostSample, ...b.lostSample].slice(0, 20),
    itemSample: [...a.itemSample, ...b.itemSample].slice(0, 20),
  };
}

/** The chain's side: canonical block numbers by hash, and the blocks reorgs orphaned. */
export interface ChainOutcome {
  canonical: ReadonlyMap<string, number>;
  orphaned: ReadonlyMap<string, number>;
}

/**
 * What the chain owes one stream: the items of its webhook per canonical block hash, and the
 * orphaned blocks it was owed an unconfirmed webhook for because the follower had published them
 * before they were replaced (their items are not compared: the matcher may read their state once
 * another block holds their height).
 */
export interface OwedWebhooks {
  canonical: ReadonlyMap<string, readonly string[]>;
  orphaned?: ReadonlySet<string>;
}

const TYPE = (w: ArrivedWebhook) => (w.removed ? 'r' : w.confirmed ? 'c' : 'u');

/**
 * One stream's webhooks against what the chain owes it (its kind's expectation): per canonical
 * block after `fromBlock`, one unconfirmed and one confirmed webhook carrying exactly the owed
 * items. An orphaned block never owes a confirmed webhook; it owes an unconfirmed one when the
 * follower had published it (`owed.orphaned`), and may have brought one otherwise. When the
 * stream asked for removal notices, an orphaned block whose unconfirmed webhook was owed or
 * arrived owes a notice carrying that webhook's items.
 */
export function countStreamWebhooks(
  stream: CountedStream,
  owed: OwedWebhooks,
  chain: ChainOutcome,
  arrivals: readonly ArrivedWebhook[],
  opts: { checkItems: boolean } = { checkItems: true },
): WebhookCounts {
  const counts = emptyCounts();
  // Items null: what arrives is not compared.
  const due = new Map<string, readonly string[] | null>();
  const allowed = new Map<string, readonly string[] | null>();
  for (const [hash, items] of owed.canonical) {
    const n = chain.canonical.get(hash);
    if (n === undefined || n <= stream.startBlock || items.length === 0) continue;
    const into = n > stream.fromBlock ? due : allowed;
    into.set(`${hash}:u`, items);
    into.set(`${hash}:c`, items);
  }
  const first = new Map<string, ArrivedWebhook>();
  for (const w of arrivals) {
    if (w.streamId !== stream.id) continue;
    if (!w.signatureValid) counts.badSignatures++;
    const key = `${w.blockHash}:${TYPE(w)}`;
    const seen = first.get(key);
    if (!seen) first.set(key, w);
    else {
      counts.duplicated++;
      if (seen.webhookId !== w.webhookId) counts.duplicatesWithNewId++;
    }
  }
  for (const [hash, n] of chain.orphaned) {
    if (n <= stream.startBlock) continue;
    const unconfirmed = first.get(`${hash}:u`);
    const owes = owed.orphaned?.has(hash) === true && n > stream.fromBlock;
    (owes ? due : allowed).set(`${hash}:u`, null);
    if (stream.notifyRemovals && (owes || unconfirmed)) due.set(`${hash}:r`, unconfirmed?.items ?? null);
  }
  for (const key of first.keys()) if (!due.has(key) && !allowed.has(key)) counts.unexpected++;

  const where = (key: string) => {
    const [hash, type] = key.split(':');
    const n = chain.canonical.get(hash!) ?? chain.orphaned.get(hash!);
    return `${stream.label} block ${n} ${hash!.slice(0, 10)} ${type}`;
  };
  for (const key of due.keys()) {
    counts.expected++;
    if (key.endsWith(':r')) counts.notices.expected++;
    if (!first.has(key)) {
      counts.lost++;
      if (counts.lostSample.length < 20) counts.lostSample.push(where(key));
      continue;
    }
    counts.delivered++;
    if (key.endsWith(':r')) counts.notices.delivered++;
  }
  if (!opts.checkItems) return counts;
  for (const [key, items] of [...due, ...allowed]) {
    const arrived = first.get(key);
    if (!arrived || items === null) continue;
    const diff = compareItems(items, arrived.items);
    counts.items.expected += items.length;
    counts.items.missing += diff.missing.length;
    counts.items.extra += diff.extra.length;
    for (const m of diff.missing.slice(0, 2))
      if (counts.itemSample.length < 20) counts.itemSample.push(`${where(key)}: missing ${m}`);
    for (const x of diff.extra.slice(0, 2))
      if (counts.itemSample.length < 20) counts.itemSample.push(`${where(key)}: extra ${x}`);
  }
  return counts;
}

/** Multiset difference: what `expected` has that `got` lacks, and the reverse. */
function compareItems(expected: readonly string[], got: readonly string[]) {
  const left = new Map<string, number>();
  for (const k of got) left.set(k, (left.get(k) ?? 0) + 1);
  const missing: string[] = [];
  for (const k of expected) {
    const n = left.get(k) ?? 0;
    if (n === 0) missing.push(k);
    else left.set(k, n - 1);
  }
  const extra = [...left].flatMap(([k, n]) => Array<string>(n).fill(k));
  return { missing, extra };
}
