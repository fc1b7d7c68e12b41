import { z } from 'zod';

/** 0x-prefixed lower-case 20-byte address. Input of any case is lower-cased. */
export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((s) => s.toLowerCase() as `0x${string}`);

/** 0x-prefixed 32-byte hash, lower case. */
export const hash32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex value')
  .transform((s) => s.toLowerCase() as `0x${string}`);

export const hexData = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes')
  .transform((s) => s.toLowerCase() as `0x${string}`);

/** An unsigned integer of any size as decimal digits (uint256 amounts never pass through `number`). */
export const uintString = z.string().regex(/^(0|[1-9][0-9]*)$/, 'must be an unsigned decimal integer');

export const blockNumber = z.number().int().nonnegative();
