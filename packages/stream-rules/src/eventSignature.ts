import { type AbiEvent as ViemAbiEvent, decodeEventLog, toEventSelector } from 'viem';

export interface AbiEvent {
  selector: `0x${string}`;
  item: ViemAbiEvent;
  fieldNames: string[];
  /** Selector, parameter types, indexing and names: two events with the same shape decode a log alike. */
  shape: string;
  /** How many topics a log of this event has: topic0 and one per indexed parameter. */
  topicCount: number;
  /** The log's parameters by name (by position when unnamed); undefined when the log does not fit the event. */
  decode(topics: readonly string[], data: string): Record<string, unknown> | undefined;
}

/** keccak256 of the canonical signature ("Transfer(address indexed from, ...)" is normalised first); undefined when not a signature. */
export function topic0OfSignature(signature: string): `0x${string}` | undefined {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*\(.*\)$/.test(signature.trim())) return undefined;
  try {
    return toEventSelector(signature.trim());
  } catch {
    return undefined;
  }
}

/** The events of an ABI with their topic0. Throws on a malformed event item. */
export function abiEvents(abi: readonly unknown[]): AbiEvent[] {
  const out: AbiEvent[] = [];
  for (const raw of abi) {
    const item = raw as ViemAbiEvent;
    if (item.type !== 'event') continue;
    const selector = toEventSelector(item);
    const fieldNames = item.inputs.map((p, i) => p.name || `${i}`);
    const fast = staticDecoder(item, fieldNames);
    out.push({
      selector,
      item,
      fieldNames,
      topicCount: 1 + item.inputs.filter((p) => p.indexed).length,
      shape: `${selector}|${item.inputs.map((p, i) => `${p.type}${p.indexed ? '!' : ''} ${fieldNames[i]}`).join(',')}`,
      decode: fast ?? ((topics, data) => decodeWithViem(item, fieldNames, topics, data)),
    });
  }
  return out;
}

function decodeWithViem(
  item: ViemAbiEvent,
  fieldNames: string[],
  topics: readonly string[],
  data: string,
): Record<string, unknown> | undefined {
  try {
    const { args } = decodeEventLog({
      abi: [item],
      data: data as `0x${string}`,
      topics: topics as [`0x${string}`, ...`0x${string}`[]],
    });
    if (!Array.isArray(args)) return { ...(args as Record<string, unknown>) };
    return Object.fromEntries(args.map((v, i) => [fieldNames[i] ?? `${i}`, v]));
  } catch {
    return undefined;
  }
}

const STATIC_TYPE = /^(address|bool|u?int(\d*)|bytes([1-9]|[12]\d|3[0-2]))$/;

/**
 * Events whose parameters are all one-word static types (address, bool, intN, uintN, bytesN:
 * Transfer, Approval, Deposit, Swap...) decode word by word without hashing: the matcher decodes
 * every log that a filter looks at, so this is its hot path. Addresses come out lower-case.
 */
function staticDecoder(item: ViemAbiEvent, fieldNames: string[]): AbiEvent['decode'] | undefined {
  if (item.anonymous || !item.inputs.every((p) => STATIC_TYPE.test(p.type))) return undefined;
  const indexed = item.inputs.filter((p) => p.indexed).length;
  const dataLength = 2 + 64 * (item.inputs.length - indexed);
  const readers = item.inputs.map((p) => wordReader(p.type));
  return (topics, data) => {
    if (topics.length !== indexed + 1 || data.length !== dataLength) return undefined;
    const out: Record<string, unknown> = {};
    let t = 1;
    let d = 2;
    for (let i = 0; i < readers.length; i++) {
      let w: string;
      if (item.inputs[i]!.indexed) w = topics[t++]!.slice(2);
      else {
        w = data.slice(d, d + 64);
        d += 64;
      }
      const v = readers[i]!(w.toLowerCase());
      if (v === undefined) return undefined;
      out[fieldNames[i]!] = v;
    }
    return out;
  };
}

/** The 12 zero bytes before an address in its 32-byte word. */
const ADDRESS_PAD = '0'.repeat(24);

function wordReader(type: string): (w: string) => unknown {
  if (type === 'address') return (w) => (w.startsWith(ADDRESS_PAD) ? `0x${w.slice(24)}` : undefined);
  if (type === 'bool') return (w) => (/^0{63}[01]$/.test(w) ? w.endsWith('1') : undefined);
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    const bits = Number(int[2] || 256);
    if (int[1] === 'u') {
      const max = (1n << BigInt(bits)) - 1n;
      return (w) => {
        const v = BigInt(`0x${w}`);
        return v <= max ? v : undefined;
      };
    }
    return (w) => BigInt.asIntN(bits, BigInt(`0x${w}`));
  }
  const size = Number(/^bytes(\d+)$/.exec(type)?.[1] ?? 32);
  return (w) => `0x${w.slice(0, size * 2)}`;
}
