import { z } from 'zod';

// Response bodies of the data interface (spec 2.2 to 2.5). Integers that the spec types as
// integers are JSON integers (a transfer's `value` is written with every digit, never rounded).

const hex = z.string().regex(/^0x[0-9a-f]*$/);
const lowerAddress = z.string().regex(/^0x[0-9a-f]{40}$/);
const digits = z.string().regex(/^\d+$/);
const isoTime = z.string().meta({ description: 'ISO 8601 UTC with milliseconds' });

/** Spec 2.2. */
export const transferRecord = z
  .object({
    token_name: z.string().nullable(),
    token_symbol: z.string().nullable(),
    token_logo: z.string().nullable(),
    token_decimals: digits.nullable(),
    transaction_hash: hex,
    address: lowerAddress,
    block_timestamp: isoTime,
    block_number: z.number().int(),
    block_hash: hex,
    to_address: lowerAddress,
    to_address_label: z.string().nullable(),
    from_address: lowerAddress,
    from_address_label: z.string().nullable(),
    value: z.number().int().meta({ description: 'Raw token amount, every digit written (uint256)' }),
    value_decimal: z.string().nullable().optional(),
    transaction_index: z.number().int(),
    log_index: z.number().int(),
    possible_spam: z.boolean(),
    verified_contract: z.boolean().optional(),
    verified_collection: z.boolean().optional(),
  })
  .meta({ id: 'TransferRecord' });

/** Spec 2.3: topic1..3 are "" when absent. */
export const logRecord = z
  .object({
    transaction_hash: hex,
    address: lowerAddress,
    block_timestamp: isoTime,
    block_number: z.number().int(),
    block_hash: hex,
    data: hex,
    topic0: hex,
    topic1: z.union([hex, z.literal('')]),
    topic2: z.union([hex, z.literal('')]),
    topic3: z.union([hex, z.literal('')]),
    transaction_index: z.number().int(),
    log_index: z.number().int(),
  })
  .meta({ id: 'LogRecord' });

/** Spec 2.4: null where decimals, total supply or a price are unknown. */
export const ownerRecord = z
  .object({
    owner_address: lowerAddress,
    owner_address_label: z.string().nullable(),
    balance: digits,
    balance_formatted: z.string().nullable(),
    usd_value: z.string().nullable(),
    is_contract: z.boolean(),
    percentage_relative_to_total_supply: z.number().nullable(),
  })
  .meta({ id: 'OwnerRecord' });

/** Spec 2.5: page numbers from 0; `cursor` is "" on the last page. */
const envelope = {
  page: digits,
  page_size: digits,
  cursor: z.string().meta({ description: 'The next page; "" when there is none' }),
};

export const transfersPage = z.object({ ...envelope, total: digits, result: z.array(transferRecord) });
export const logsPage = z.object({ ...envelope, result: z.array(logRecord) });
export const ownersPage = z.object({
  ...envelope,
  total_supply: digits.optional(),
  supply_mismatch: z.object({ block_number: digits, total_supply_on_chain: digits }).optional().meta({
    description:
      'Present when totalSupply() on the chain differed from the supply the Transfer events add up to (a rebasing or fee-on-transfer token): the balances are not exact',
  }),
  result: z.array(ownerRecord),
});
