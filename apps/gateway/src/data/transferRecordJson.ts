import type { TokenMetadata, WalletTransferRow } from '@tributary/db';
import { formatUnits } from './formatUnits.ts';

const text = (s: string | null): string => (s === null ? 'null' : JSON.stringify(s));

/**
 * One transfer record (spec 2.2: its fields in its order, then the hosted service's extras) as
 * compact JSON, written directly: a page holds up to 100 of them and this is the gateway's
 * hottest path. `value` is a JSON integer with every digit; integers stay integers; hashes and
 * addresses are our own 0x hex (no escaping needed); every other string goes through
 * JSON.stringify.
 */
export function transferRecordJson(t: WalletTransferRow, token: TokenMetadata | null | undefined): string {
  const decimals = token?.decimals ?? null;
  return (
    `{"token_name":${text(token?.name ?? null)},"token_symbol":${text(token?.symbol ?? null)},` +
    `"token_logo":${text(token?.logo ?? null)},"token_decimals":${decimals === null ? 'null' : `"${decimals}"`},` +
    `"transaction_hash":"${t.transactionHash}","address":"${t.tokenAddress}",` +
    `"block_timestamp":"${t.blockTimestamp.toISOString()}","block_number":${t.blockNumber},` +
    `"block_hash":"${t.blockHash}","to_address":"${t.toAddress}","to_address_label":${text(t.toLabel)},` +
    `"from_address":"${t.fromAddress}","from_address_label":${text(t.fromLabel)},"value":${t.value},` +
    `"transaction_index":${t.transactionIndex},"log_index":${t.logIndex},` +
    `"possible_spam":${token?.possibleSpam ?? false},"verified_collection":${token?.verified ?? false},` +
    `"verified_contract":${token?.verified ?? false},` +
    `"value_decimal":${decimals === null ? 'null' : `"${formatUnits(t.value, decimals)}"`}}`
  );
}
