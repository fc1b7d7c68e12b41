import { type AbiEvent as ViemAbiEvent, toEventSelector } from 'viem';

export interface AbiEvent {
  selector: `0x${string}`;
  item: ViemAbiEvent;
  fieldNames: string[];
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
    out.push({ selector, item, fieldNames: item.inputs.map((p, i) => p.name || `${i}`) });
  }
  return out;
}
