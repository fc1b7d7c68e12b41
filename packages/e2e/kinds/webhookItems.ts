/**
 * A webhook's items as comparable keys, one per item the receiver would act on: the same keys a
 * kind builds from the chain (its expectation), so a webhook that arrived without an item, with
 * an item too many, or with a wrong value (a balance, a trigger result) differs from it. Values
 * are the wire's decimal strings; addresses lower-case.
 */
export const itemKey = {
  log: (logIndex: number | string) => `log:${logIndex}`,
  tx: (hash: string, from: string, to: string | null, value: bigint | string) =>
    `tx:${hash}:${from}:${to}:${value}`,
  internal: (txHash: string, from: string, to: string, value: bigint | string) =>
    `internal:${txHash}:${from}:${to}:${value}`,
  erc20Transfer: (
    logIndex: number | string,
    contract: string,
    from: string,
    to: string,
    value: bigint | string,
  ) => `erc20Transfer:${logIndex}:${contract}:${from}:${to}:${value}`,
  erc20Approval: (
    logIndex: number | string,
    contract: string,
    owner: string,
    spender: string,
    value: bigint | string,
  ) => `erc20Approval:${logIndex}:${contract}:${owner}:${spender}:${value}`,
  nftTransfer: (
    logIndex: number | string,
    contract: string,
    from: string,
    to: string,
    tokenId: bigint | string,
    amount: bigint | string,
  ) => `nftTransfer:${logIndex}:${contract}:${from}:${to}:${tokenId}:${amount}`,
  nativeBalance: (address: string, balance: bigint | string) => `nativeBalance:${address}:${balance}`,
  /** A trigger's result on one item (the item's own key): `error` results differ from every expectation. */
  trigger: (item: string, name: string, value: unknown) => `trigger:${item}:${name}=${JSON.stringify(value)}`,
};

type Item = Record<string, unknown> & { triggers?: { name: string; value: unknown }[] };
const str = (v: unknown) => String(v ?? null).toLowerCase();

/** Every item of a received webhook body, as keys (see itemKey); NFT approvals by their log only (no kind expects one). */
export function webhookItems(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  const each = (name: string, key: (i: Item) => string) => {
    for (const item of (body[name] as Item[] | undefined) ?? []) {
      const k = key(item);
      out.push(k);
      for (const t of item.triggers ?? []) out.push(itemKey.trigger(k, t.name, t.value));
    }
  };
  each('logs', (l) => itemKey.log(str(l['logIndex'])));
  each('txs', (t) => itemKey.tx(str(t['hash']), str(t['fromAddress']), str(t['toAddress']), str(t['value'])));
  each('txsInternal', (t) =>
    itemKey.internal(str(t['transactionHash']), str(t['from']), str(t['to']), str(t['value'])),
  );
  each('erc20Transfers', (t) =>
    itemKey.erc20Transfer(
      str(t['logIndex']),
      str(t['contract']),
      str(t['from']),
      str(t['to']),
      str(t['value']),
    ),
  );
  each('erc20Approvals', (t) =>
    itemKey.erc20Approval(
      str(t['logIndex']),
      str(t['contract']),
      str(t['owner']),
      str(t['spender']),
      str(t['value']),
    ),
  );
  each('nftTransfers', (t) =>
    itemKey.nftTransfer(
      str(t['logIndex']),
      str(t['contract']),
      str(t['from']),
      str(t['to']),
      str(t['tokenId']),
      str(t['amount']),
    ),
  );
  each('nftTokenApprovals', (t) => `nftTokenApproval:${str(t['logIndex'])}`);
  const grouped = (body['nftApprovals'] ?? {}) as Record<string, Item[] | undefined>;
  for (const [standard, list] of Object.entries(grouped))
    for (const a of list ?? []) out.push(`nftApproval:${standard}:${str(a['logIndex'])}`);
  each('nativeBalances', (b) => itemKey.nativeBalance(str(b['address']), str(b['balance'])));
  return out;
}
