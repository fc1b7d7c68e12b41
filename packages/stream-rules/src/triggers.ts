import type { TriggerResult } from '@tributary/schema';
import {
  type AbiFunction,
  type AbiParameter,
  decodeFunctionResult,
  encodeFunctionData,
  toFunctionSelector,
} from 'viem';
import { topic0OfSignature } from './eventSignature.ts';
import { type ItemKind, isSelector, itemKindOf, resolveSelector } from './selectors.ts';
import type { StreamConfig } from '@tributary/schema';

/** One read-only call at the block of the webhook. */
export interface ContractCall {
  to: `0x${string}`;
  data: `0x${string}`;
  from?: `0x${string}`;
}

/** A stream trigger, checked and prepared once when the stream is compiled. */
export interface CompiledTrigger {
  kind: ItemKind;
  fn: AbiFunction;
  contractAddress: string;
  inputs: readonly unknown[];
  callFrom: string | undefined;
  /** Only logs with this topic0 (log triggers). */
  topic0: string | undefined;
  /** The result's name: the function's first output name, `output1` when unnamed. */
  name: string;
}

export function compileTriggers(config: StreamConfig): CompiledTrigger[] {
  return (config.triggers ?? []).map((t) => {
    const fn = { inputs: [], outputs: [], stateMutability: 'view', ...t.functionAbi } as AbiFunction;
    toFunctionSelector(fn); // throws on a malformed function item
    return {
      kind: itemKindOf(t.type) ?? 'log',
      fn,
      contractAddress: t.contractAddress,
      inputs: t.inputs ?? [],
      callFrom: t.callFrom,
      topic0: t.topic0 ? (topic0OfSignature(t.topic0) ?? t.topic0.toLowerCase()) : undefined,
      name: fn.outputs[0]?.name || 'output1',
    };
  });
}

class SelectorError extends Error {}

function resolveDeep(
  v: unknown,
  kind: ItemKind,
  item: Record<string, unknown>,
  decoded?: Record<string, unknown>,
): unknown {
  if (Array.isArray(v)) return v.map((x) => resolveDeep(x, kind, item, decoded));
  if (!isSelector(v)) return v;
  const r = resolveSelector(kind, item, v, decoded);
  if (r === undefined) throw new SelectorError(`selector ${v} has no value on this ${kind}`);
  return r;
}

/** Converts a JSON / decoded value to what viem encodes for `param` (uint256 as bigint, ...). */
function coerceArg(param: AbiParameter, value: unknown): unknown {
  const arrayMatch = /^(.*)\[\d*\]$/.exec(param.type);
  if (arrayMatch) {
    const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    if (!Array.isArray(list)) throw new SelectorError(`${param.name || param.type} must be an array`);
    return list.map((x) => coerceArg({ ...param, type: arrayMatch[1]! }, x));
  }
  if (param.type === 'tuple') {
    const components = (param as { components?: readonly AbiParameter[] }).components ?? [];
    if (Array.isArray(value)) return components.map((c, i) => coerceArg(c, value[i]));
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(components.map((c, i) => [c.name ?? `${i}`, coerceArg(c, obj[c.name ?? ''])]));
  }
  if (/^u?int\d*$/.test(param.type)) return BigInt(String(value));
  if (param.type === 'bool') return value === true || value === 'true';
  if (param.type === 'address') return String(value).toLowerCase();
  return value;
}

/** The call one trigger makes for one item, or why it cannot be made. */
export function planTriggerCall(
  trigger: CompiledTrigger,
  item: Record<string, unknown>,
  decoded?: Record<string, unknown>,
): { ok: true; call: ContractCall } | { ok: false; error: string } {
  try {
    const to = String(resolveDeep(trigger.contractAddress, trigger.kind, item, decoded)).toLowerCase();
    if (!/^0x[0-9a-f]{40}$/.test(to)) return { ok: false, error: `contract address ${to} is not an address` };
    const raw = trigger.inputs.map((v) => resolveDeep(v, trigger.kind, item, decoded));
    const args = trigger.fn.inputs.map((p, i) => coerceArg(p, raw[i]));
    const data = encodeFunctionData({ abi: [trigger.fn], functionName: trigger.fn.name, args });
    const call: ContractCall = { to: to as `0x${string}`, data };
    if (trigger.callFrom) {
      const from = String(resolveDeep(trigger.callFrom, trigger.kind, item, decoded)).toLowerCase();
      call.from = from as `0x${string}`;
    }
    return { ok: true, call };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

/** Decimal strings for integers, lower-case addresses, the rest as JSON allows (no floats). */
function formatTriggerValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return /^0x[0-9a-fA-F]{40}$/.test(v) ? v.toLowerCase() : v;
  if (Array.isArray(v)) return v.map(formatTriggerValue);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, formatTriggerValue(x)]));
  }
  return v;
}

/** The `{name, value}` of a call's return data (one output: its value; several: the list). */
export function triggerResult(trigger: CompiledTrigger, returned: `0x${string}`): TriggerResult {
  try {
    const decoded = decodeFunctionResult({
      abi: [trigger.fn],
      functionName: trigger.fn.name,
      data: returned,
    });
    return { name: trigger.name, value: formatTriggerValue(decoded) };
  } catch (err) {
    return triggerError(err);
  }
}

export const triggerError = (err: unknown): TriggerResult => ({ name: 'error', value: errorMessage(err) });

function errorMessage(err: unknown): string {
  if (typeof err === 'string') return err;
  const e = err as { shortMessage?: string; message?: string };
  return e.shortMessage ?? e.message ?? String(err);
}
