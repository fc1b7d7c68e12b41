import type { ChainRegistry } from '@tributary/chains';
import { type StreamConfig, type TRIGGER_TYPES, streamBody } from '@tributary/schema';
import { checkFilterShape } from './evaluateFilter.ts';
import { type AbiEvent, abiEvents, topic0OfSignature } from './eventSignature.ts';
import {
  DEFAULT_STREAM_LIMITS,
  STREAM_LIMIT_VARIABLES,
  type StreamLimits,
  jsonDepth,
  overLimits,
} from './streamLimits.ts';

/** Which `$selectors` each trigger type can read from its item. `log` may also name any decoded event field. */
const TRIGGER_SELECTORS: Record<(typeof TRIGGER_TYPES)[number], readonly string[]> = {
  tx: ['$from', '$to', '$value', '$hash', '$input', '$fromAddress', '$toAddress'],
  log: ['$contract', '$address', '$topic1', '$topic2', '$topic3', '$data'],
  erc20transfer: ['$contract', '$from', '$to', '$value'],
  erc20approval: ['$contract', '$owner', '$spender', '$value'],
  nfttransfer: ['$contract', '$from', '$to', '$tokenId', '$amount'],
};

type ValidationDetails = Record<string, { message: string }>;
export type ValidationResult = { ok: true; config: StreamConfig } | { ok: false; details: ValidationDetails };

/**
 * Validates a whole stream body: its nesting, its shape, its sizes against the operator's limits,
 * then the create rules of the wire contract.
 */
export function validateStreamConfig(
  input: unknown,
  chains: ChainRegistry,
  limits: StreamLimits = DEFAULT_STREAM_LIMITS,
): ValidationResult {
  // Walked without recursion before anything recursive (the schema, ABI parsing) meets it.
  const depth = jsonDepth(input, limits.jsonDepth);
  if (depth > limits.jsonDepth) {
    return {
      ok: false,
      details: {
        body: {
          message: `nested more than ${limits.jsonDepth} levels: the limit is ${limits.jsonDepth} (${STREAM_LIMIT_VARIABLES.jsonDepth})`,
        },
      },
    };
  }
  const parsed = streamBody.safeParse(input);
  const details: ValidationDetails = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.length > 0 ? issue.path.join('.') : 'body';
      details[key] ??= { message: issue.message };
    }
    return { ok: false, details };
  }
  const config = parsed.data;
  const tooLarge = overLimits(config as Record<string, unknown>, limits);
  if (Object.keys(tooLarge).length > 0) return { ok: false, details: tooLarge };
  const add = (key: string, message: string) => {
    details[key] ??= { message };
  };

  if (!config.includeContractLogs && !config.includeNativeTxs && !config.includeInternalTxs) {
    add(
      'includeContractLogs',
      'at least one of includeContractLogs, includeNativeTxs, includeInternalTxs must be true',
    );
  }
  config.chainIds = config.chainIds.map((c) => c.toLowerCase());
  config.chainIds.forEach((c, i) => {
    if (!/^0x[0-9a-f]+$/.test(c) || !chains.resolve(c)) add(`chainIds.${i}`, `unknown chain id ${c}`);
  });

  let events: AbiEvent[] = [];
  try {
    events = abiEvents(config.abi ?? []);
  } catch (err) {
    add('abi', `invalid abi: ${(err as Error).message}`);
  }
  const eventBySelector = new Map(events.map((e) => [e.selector, e]));
  const topic0Selectors = new Map<string, string>();
  for (const [i, sig] of (config.topic0 ?? []).entries()) {
    const selector = topic0OfSignature(sig);
    if (!selector) {
      add(`topic0.${i}`, `"${sig}" is not an event signature such as Transfer(address,address,uint256)`);
      continue;
    }
    topic0Selectors.set(selector, sig);
    if (!eventBySelector.has(selector)) add(`topic0.${i}`, `"${sig}" is not covered by the abi`);
  }
  for (const [i, opt] of (config.advancedOptions ?? []).entries()) {
    const selector = topic0OfSignature(opt.topic0);
    if (!selector || !topic0Selectors.has(selector)) {
      add(`advancedOptions.${i}.topic0`, `"${opt.topic0}" is not among topic0`);
      continue;
    }
    if (opt.filter !== undefined) {
      const event = eventBySelector.get(selector);
      const problem = checkFilterShape(opt.filter, new Set(event?.fieldNames ?? []));
      if (problem) add(`advancedOptions.${i}.filter`, problem);
    }
  }
  if (config.allAddresses && (!config.abi?.length || !config.topic0?.length)) {
    add('allAddresses', 'allAddresses needs abi and topic0');
  }
  (config.triggers ?? []).forEach((t, i) => {
    if (!/^(0x[0-9a-fA-F]{40}|\$[A-Za-z0-9_]+)$/.test(t.contractAddress)) {
      add(`triggers.${i}.contractAddress`, 'must be an address or a $selector');
    }
    if (t.functionAbi.type !== 'function') add(`triggers.${i}.functionAbi.type`, 'must be "function"');
    const allowed = TRIGGER_SELECTORS[t.type];
    const selectors = [t.contractAddress, ...(t.inputs ?? []), t.callFrom].filter(
      (s): s is string => typeof s === 'string' && s.startsWith('$'),
    );
    for (const s of selectors) {
      if (!allowed.includes(s) && t.type !== 'log') {
        add(
          `triggers.${i}`,
          `selector ${s} does not fit trigger type ${t.type} (allowed: ${allowed.join(', ')})`,
        );
      }
    }
  });
  (config.getNativeBalances ?? []).forEach((g, i) => {
    for (const s of g.selectors) {
      if (!s.startsWith('$')) add(`getNativeBalances.${i}.selectors`, `selector ${s} must start with $`);
    }
  });

  return Object.keys(details).length > 0 ? { ok: false, details } : { ok: true, config };
}
