/**
 * `$selectors` of triggers and getNativeBalances: `$name` reads field `name` of the webhook item
 * the trigger runs on (`$to` of an erc20Transfer, `$fromAddress` of a tx, `$address` of a log),
 * with the hosted service's aliases (`$contract` is the emitting contract of a log or transfer,
 * `$from`/`$to` of a tx are its fromAddress/toAddress), then the decoded event fields of a log
 * (`$owner`, `$amount`, ... as named in the stream's ABI).
 */
export type ItemKind = 'tx' | 'log' | 'erc20transfer' | 'erc20approval' | 'nfttransfer' | 'internaltx';

const ALIASES: Record<ItemKind, Record<string, string>> = {
  tx: { from: 'fromAddress', to: 'toAddress', contract: 'toAddress' },
  log: { contract: 'address' },
  erc20transfer: { address: 'contract' },
  erc20approval: { address: 'contract' },
  nfttransfer: { address: 'contract' },
  internaltx: { fromAddress: 'from', toAddress: 'to' },
};

export const isSelector = (v: unknown): v is string => typeof v === 'string' && v.startsWith('$');

/** The value a selector names on an item; undefined when the item has no such field. */
export function resolveSelector(
  kind: ItemKind,
  item: Record<string, unknown>,
  selector: string,
  decoded?: Record<string, unknown>,
): unknown {
  const name = selector.slice(1);
  if (name !== 'triggers' && item[name] !== undefined && item[name] !== null) return item[name];
  const alias = ALIASES[kind][name];
  if (alias !== undefined && item[alias] !== undefined && item[alias] !== null) return item[alias];
  if (decoded && decoded[name] !== undefined) return decoded[name];
  return undefined;
}

/** The item kind a getNativeBalances / trigger `type` names (the hosted spellings, case-insensitive). */
export function itemKindOf(type: string): ItemKind | undefined {
  const t = type.toLowerCase().replace(/[_-]/g, '');
  if (t === 'tx' || t === 'txs' || t === 'transaction') return 'tx';
  if (t === 'log' || t === 'logs') return 'log';
  if (t === 'erc20transfer' || t === 'erc20transfers') return 'erc20transfer';
  if (t === 'erc20approval' || t === 'erc20approvals') return 'erc20approval';
  if (t === 'nfttransfer' || t === 'nfttransfers') return 'nfttransfer';
  if (t === 'internaltx' || t === 'txsinternal' || t === 'internaltxs') return 'internaltx';
  return undefined;
}
