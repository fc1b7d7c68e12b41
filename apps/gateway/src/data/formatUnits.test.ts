import { describe, expect, it } from 'vitest';
import { formatUnits } from './formatUnits.ts';

describe('formatUnits', () => {
  it('applies decimals without floating point and trims trailing zeros', () => {
    expect(formatUnits('1500000', 6)).toBe('1.5');
    expect(formatUnits('5', 6)).toBe('0.000005');
    expect(formatUnits(String(10n ** 18n), 18)).toBe('1');
    expect(formatUnits('0', 18)).toBe('0');
    expect(formatUnits('42', 0)).toBe('42');
    expect(formatUnits('1000', 3)).toBe('1');
    expect(formatUnits('1001', 3)).toBe('1.001');
    expect(formatUnits('120', 3)).toBe('0.12');
    expect(formatUnits(String(2n ** 256n - 1n), 18)).toBe(
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    );
  });
});
