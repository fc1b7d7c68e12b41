import { z } from 'zod';
import {
  addressParam,
  blockParam,
  chainParam,
  cursorParam,
  dataLimitParam,
  dateParam,
  orderParam,
} from './httpParams.ts';

// Path and query parameters of the data interface (`/api/v2.2`, spec 4.1 to 4.3). Key order is
// the order in which problems are reported: the first failing parameter names the 400.

export const walletPathParams = z.object({ address: addressParam('Wallet address') });
export const contractPathParams = z.object({ address: addressParam('Contract address') });
export const tokenPathParams = z.object({ token_address: addressParam('ERC20 token contract address') });

export const walletTransfersQuery = z.object({
  chain: chainParam.optional(),
  contract_addresses: z
    .array(addressParam('Token contract address'))
    .meta({ description: 'Only transfers of these tokens (name[]=a&name[]=b, repeated or indexed)' })
    .optional(),
  from_block: blockParam('from_block', 'Lowest block (wins over from_date)').optional(),
  to_block: blockParam('to_block', 'Highest block (wins over to_date)').optional(),
  from_date: dateParam('from_date', 'Earliest block time').optional(),
  to_date: dateParam('to_date', 'Latest block time').optional(),
  limit: dataLimitParam.optional(),
  order: orderParam.optional(),
  cursor: cursorParam.optional(),
});

const TOPIC = /^0x[0-9a-fA-F]{64}$/;

export const contractLogsQuery = z.object({
  chain: chainParam.optional(),
  topic0: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'topic0 is required' : 'topic0 must be given once, as a single value',
    })
    .regex(TOPIC, { error: 'topic0 must be a 0x-prefixed 32-byte hex value' })
    .meta({
      description: 'Event topic0 to match',
      example: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    }),
  block_number: blockParam('block_number', 'One block (wins over from_block and to_block)').optional(),
  from_block: blockParam('from_block', 'Lowest block (blocks win over dates)').optional(),
  to_block: blockParam('to_block', 'Highest block (blocks win over dates)').optional(),
  from_date: dateParam('from_date', 'Earliest block time, when no block is given').optional(),
  to_date: dateParam('to_date', 'Latest block time, when no block is given').optional(),
  limit: dataLimitParam.optional(),
  order: orderParam.optional(),
  cursor: cursorParam.optional(),
});

export const tokenOwnersQuery = z.object({
  chain: chainParam.optional(),
  limit: dataLimitParam.optional(),
  order: orderParam.optional(),
  cursor: cursorParam.optional(),
});
