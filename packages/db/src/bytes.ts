/** Hex strings in code, bytea in PostgreSQL. */
export function hexToBytes(hex: string): Buffer {
  return Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex');
}

export function bytesToHex(buf: Buffer): `0x${string}` {
  return `0x${buf.toString('hex')}`;
}
