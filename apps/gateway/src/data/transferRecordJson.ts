import type { TokenMetadata, WalletTransferRecord } from '@tributary/db/queries';
import { formatUnits } from './formatUnits.ts';

const text = (s: string | null): string => (s === null ? 'null' : JSON.stringify(s));

/**
 * One transfer record (spec 2.2: its fields in its order, then the hosted service's extras) as
 * compact JSON: the token's metadata, the record's own members as PostgreSQL wrote them (see
 * WalletTransferRecord: `value` a JSON integer with every digit, integers stay integers), then
 * the flags and `value_decimal`. A page holds up to 100 of them: this is the gateway's hottest
 * path, so nothing is parsed or walked again.
 */
export function transferRecordJson(t: WalletTransferRecord, token: TokenMetadata | null | undefined): string {
  const decimals = token?.decimals ?? null;
  return (
    `{"token_name":${text(token?.name ?? null)},"token_symbol":${text(token?.symbol ?? null)},` +
    `"token_logo":${text(token?.logo ?? null)},"token_decimals":${decimals === null ? 'null' : `"${decimals}"`},` +
    `${t.members},` +
    `"possible_spam":${token?.possibleSpam ?? false},"verified_collection":${token?.verified ?? false},` +
    `"verified_contract":${token?.verified ?? false},` +
    `"value_decimal":${decimals === null ? 'null' : `"${formatUnits(t.value, decimals)}"`}}`
  );
}
