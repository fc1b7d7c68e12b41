import type { TokenInfo, TokenMetadata } from '@tributary/schema';
import { type Address, type Hex, type PublicClient, decodeAbiParameters, hexToBytes } from 'viem';
import { SELECTORS } from './signatures.ts';
import { callOrNull } from './callOrNull.ts';

/**
 * Reads name, symbol and decimals (readTokenInfo) at the block where the token was first seen
 * and totalSupply just before it (the projector adds that block's mints and burns). Tolerant by
 * design: a getter that reverts, returns nothing or returns garbage gives null; bytes32 names
 * (old tokens) are decoded as text. A token that did not exist yet before firstSeenBlock had a
 * supply of 0.
 */
export async function readTokenMetadata(
  client: PublicClient,
  token: Address,
  firstSeenBlock: bigint,
): Promise<TokenMetadata> {
  const before = firstSeenBlock > 0n ? firstSeenBlock - 1n : 0n;
  const [info, supply, codeBefore] = await Promise.all([
    readTokenInfo(token, (data) => callOrNull(client, token, data, firstSeenBlock)),
    callOrNull(client, token, SELECTORS.totalSupply, before),
    firstSeenBlock > 0n ? client.getCode({ address: token, blockNumber: before }).catch(() => '0x') : '0x',
  ]);
  const existedBefore = codeBefore !== undefined && codeBefore !== '0x';
  let totalSupply = decodeUint(supply);
  if (totalSupply === null && !existedBefore && firstSeenBlock > 0n) totalSupply = 0n;
  return {
    ...info,
    totalSupply: totalSupply === null ? null : totalSupply.toString(),
    readAtBlock: Number(before),
  };
}

/**
 * Name, symbol and decimals of a token, each null when its getter reverts, returns nothing or
 * returns garbage. `call` makes an eth_call to the token (at whatever block the caller reads),
 * giving null when it fails.
 */
export async function readTokenInfo(
  token: Address,
  call: (data: Hex) => Promise<Hex | null>,
): Promise<TokenInfo> {
  const [name, symbol, decimals] = await Promise.all([
    call(SELECTORS.name),
    call(SELECTORS.symbol),
    call(SELECTORS.decimals),
  ]);
  const dec = decodeUint(decimals);
  return {
    address: token.toLowerCase() as Address,
    name: decodeText(name),
    symbol: decodeText(symbol),
    decimals: dec !== null && dec <= 255n ? Number(dec) : null,
  };
}

export function decodeUint(data: `0x${string}` | null): bigint | null {
  if (data === null || data.length !== 66) return null;
  return BigInt(data);
}

/**
 * An ABI string, else a bytes32 with trailing zero padding; NUL and control bytes are dropped. A
 * right-aligned word (a number) is not text: null.
 */
export function decodeText(data: `0x${string}` | null): string | null {
  if (data === null || data === '0x') return null;
  if (data.length >= 130) {
    try {
      const [s] = decodeAbiParameters([{ type: 'string' }], data);
      return clean(s);
    } catch {
      // not an ABI string: fall through to bytes32
    }
  }
  if (data.length === 66) {
    const bytes = hexToBytes(data);
    // bytes32 text is left-aligned; a leading zero byte means a number (a uint256 name()), not text.
    if (bytes[0] === 0) return null;
    let end = bytes.length;
    while (end > 0 && bytes[end - 1] === 0) end--;
    return clean(new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, end)));
  }
  return null;
}

function clean(s: string): string | null {
  // PostgreSQL text cannot hold NUL; control characters are never part of a token name.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  const out = s.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return out.length > 0 ? out : null;
}
