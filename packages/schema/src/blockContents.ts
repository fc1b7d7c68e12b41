/**
 * The parts of a block beyond its header and logs that a block event may or may not carry.
 * Logs always travel (every consumer reads them); transactions with their receipts, and the
 * internal transactions of their call traces, cost the node a call or more per block and are
 * fetched only for blocks that a stream can read (the follower's demand), so every block event
 * says which of them it carries (`hasTransactions`, `hasInternalTransactions`).
 */
export interface BlockContents {
  transactions: boolean;
  internalTransactions: boolean;
}

export const NO_CONTENTS: BlockContents = Object.freeze({ transactions: false, internalTransactions: false });

/** What a block event says it carries. */
export function contentsOf(event: {
  hasTransactions: boolean;
  hasInternalTransactions: boolean;
}): BlockContents {
  return { transactions: event.hasTransactions, internalTransactions: event.hasInternalTransactions };
}

/** Both needs at once: what either reads. Internal transactions come with their transactions. */
export function unionContents(a: BlockContents, b: BlockContents): BlockContents {
  return normalizeContents({
    transactions: a.transactions || b.transactions,
    internalTransactions: a.internalTransactions || b.internalTransactions,
  });
}

/** Internal transactions are read from the traces of the block's transactions: needing them needs those. */
export function normalizeContents(c: BlockContents): BlockContents {
  return {
    transactions: c.transactions || c.internalTransactions,
    internalTransactions: c.internalTransactions,
  };
}

/** What `needed` asks for that `carried` lacks (NO_CONTENTS-like when nothing is missing). */
export function missingContents(carried: BlockContents, needed: BlockContents): BlockContents {
  return {
    transactions: needed.transactions && !carried.transactions,
    internalTransactions: needed.internalTransactions && !carried.internalTransactions,
  };
}

export function isEmptyContents(c: BlockContents): boolean {
  return !c.transactions && !c.internalTransactions;
}

export function coversContents(carried: BlockContents, needed: BlockContents): boolean {
  return isEmptyContents(missingContents(carried, needed));
}

/** "transactions, internal transactions" (for logs and readiness messages). */
export function describeContents(c: BlockContents): string {
  const parts = [c.transactions && 'transactions', c.internalTransactions && 'internal transactions'];
  return parts.filter(Boolean).join(', ') || 'nothing';
}
