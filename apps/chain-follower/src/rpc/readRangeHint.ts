import { errorText } from '@tributary/evm';

/**
 * What an eth_getLogs range error says about the range to ask for instead:
 * - `blocks`: a range that should work from the same start ("Try with this block range
 *   [0x1, 0x9]", "this block range should work: [1, 9]"): it depends on how dense the blocks are;
 * - `maxBlocks`: the provider's fixed block-range limit ("Max block range is 500", "Max range:
 *   500", "limited to a 1,000 block range"): it holds for every range.
 * Undefined when the error names no number ("block range is too wide", "query returned more than
 * 10000 results"): halve.
 */
export type RangeHint = { blocks: number; fixed: boolean };

const SUGGESTED = /\[\s*(0x[0-9a-f]+|\d+)\s*,\s*(0x[0-9a-f]+|\d+)\s*\]/i;
const FIXED = [
  /max(?:imum)? (?:block )?range(?: is|:)? ([\d,]+)/i,
  /limited to a ([\d,]+)(?: block)? range/i,
  /up to a ([\d,]+) block range/i,
  /requested too many blocks from \d+ to \d+, maximum is set to ([\d,]+)/i,
];

export function readRangeHint(err: unknown): RangeHint | undefined {
  const text = errorText(err);
  const suggested = SUGGESTED.exec(text);
  if (suggested) {
    const blocks = Number(suggested[2]) - Number(suggested[1]) + 1;
    if (Number.isSafeInteger(blocks) && blocks >= 1) return { blocks, fixed: false };
  }
  for (const re of FIXED) {
    const m = re.exec(text);
    const blocks = m ? Number(m[1]!.replace(/,/g, '')) : Number.NaN;
    if (Number.isSafeInteger(blocks) && blocks >= 1) return { blocks, fixed: true };
  }
  return undefined;
}
