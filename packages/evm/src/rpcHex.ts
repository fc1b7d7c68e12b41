/** JSON-RPC quantities: numbers as 0x-hex on the wire. */
export const toHex = (n: number) => `0x${n.toString(16)}`;
export const hexToNumber = (h: string) => Number.parseInt(h, 16);
/** An exact decimal string (uint256 amounts never go through a JS number); absent is 0. */
export const hexToDecimal = (h: string | null | undefined) => (h ? BigInt(h).toString() : '0');
