import { z } from 'zod';

const abiParam: z.ZodType<unknown> = z
  .object({
    name: z.string().optional(),
    type: z.string(),
    indexed: z.boolean().optional(),
    internalType: z.string().optional(),
    components: z.array(z.lazy(() => abiParam)).optional(),
  })
  .passthrough()
  .meta({ id: 'AbiParam' });

const abiItem = z
  .object({
    anonymous: z.boolean().optional(),
    constant: z.boolean().optional(),
    inputs: z.array(abiParam).optional(),
    name: z.string().optional(),
    outputs: z.array(abiParam).optional(),
    payable: z.boolean().optional(),
    stateMutability: z.string().optional(),
    type: z.string(),
    gas: z.number().optional(),
  })
  .passthrough()
  .meta({ id: 'AbiItem' });

const advancedOption = z.object({
  topic0: z.string(),
  filter: z.record(z.string(), z.unknown()).optional(),
  includeNativeTxs: z.boolean().optional(),
});

export const TRIGGER_TYPES = ['tx', 'log', 'erc20transfer', 'erc20approval', 'nfttransfer'] as const;

const trigger = z.object({
  type: z.enum(TRIGGER_TYPES),
  contractAddress: z.string().min(1),
  functionAbi: abiItem,
  inputs: z.array(z.unknown()).optional(),
  topic0: z.string().optional(),
  callFrom: z.string().optional(),
});

const nativeBalanceSelector = z.object({ selectors: z.array(z.string()), type: z.string() });

/** The stream body (spec 4.4): PUT and POST /streams/evm. Unknown keys are dropped; the kept ones are echoed on reads. */
export const streamBody = z.object({
  webhookUrl: z.string().url(),
  description: z.string(),
  tag: z.string(),
  topic0: z.array(z.string()).nullable().optional(),
  allAddresses: z.boolean().optional(),
  includeNativeTxs: z.boolean().optional(),
  includeContractLogs: z.boolean().optional(),
  includeInternalTxs: z.boolean().optional(),
  includeAllTxLogs: z.boolean().optional(),
  /** Leave out logs and transfers of contracts flagged as possible spam (tokens.possible_spam). */
  filterPossibleSpamAddresses: z.boolean().optional(),
  /**
   * Beyond the hosted service: when a reorg orphans a block whose unconfirmed webhook this stream
   * got (or is owed), send a removal notice: that body again with `"removed": true`.
   */
  notifyRemovals: z.boolean().optional(),
  /**
   * Beyond the hosted service: at most this many webhook requests a second to this stream's
   * webhookUrl, counted across every sender; the backlog waits, and never counts as failures.
   * null (or absent): no limit.
   */
  maxRequestsPerSecond: z.number().int().min(1).max(10_000).nullable().optional(),
  /**
   * Beyond the hosted service: confirmed webhooks are sent one at a time in block order (per chain),
   * the next only after the previous one got a 2xx, each with a gap-free `sequence`.
   */
  ordered: z.boolean().optional(),
  getNativeBalances: z.array(nativeBalanceSelector).nullable().optional(),
  abi: z.array(abiItem).nullable().optional(),
  advancedOptions: z.array(advancedOption).nullable().optional(),
  chainIds: z.array(z.string()).min(1),
  demo: z.boolean().optional(),
  triggers: z.array(trigger).nullable().optional(),
});
export type StreamConfig = z.infer<typeof streamBody>;
