/**
 * A raw token amount (a non-negative integer's decimal digits, as a uint256 is stored) with
 * `decimals` applied, as a plain decimal string ("1.5", "0.000001", "42"): string work only, no
 * bigint or floating point.
 */
export function formatUnits(digits: string, decimals: number): string {
  if (decimals <= 0) return digits;
  const padded = digits.length > decimals ? digits : digits.padStart(decimals + 1, '0');
  const point = padded.length - decimals;
  let end = padded.length;
  while (end > point && padded.charCodeAt(end - 1) === 48) end--;
  return end === point ? padded.slice(0, point) : `${padded.slice(0, point)}.${padded.slice(point, end)}`;
}
