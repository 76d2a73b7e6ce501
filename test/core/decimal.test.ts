import { describe, expect, it } from 'vitest';
import Big from 'big.js';
import fc from 'fast-check';
import { dec, decToString, isDecimalString, isMultipleOf, roundToStep } from '../../src/core/decimal.ts';

describe('decimal', () => {
  it('parses decimal strings exactly, never through a float', () => {
    expect(decToString(dec('0.1').plus(dec('0.2')))).toBe('0.3');
    expect(decToString(dec('90755.3'))).toBe('90755.3');
    expect(decToString(dec('123456789012345678.000000001'))).toBe('123456789012345678.000000001');
  });

  it('refuses non-decimals and inexact numbers', () => {
    expect(() => dec('abc')).toThrow(/not a decimal/);
    expect(() => dec('')).toThrow(/not a decimal/);
    expect(() => dec('1.2.3')).toThrow(/not a decimal/);
    // Refused in linear time: the literal pattern matches a number one way only (with `\d+\.?\d*`,
    // a long run of digits before a bad character took time quadratic in its length: minutes here).
    const long = '1'.repeat(300_000);
    expect(isDecimalString(`${long}x`)).toBe(false);
    expect(isDecimalString(`${long}.5`)).toBe(true);
    expect(() => dec(0.1)).toThrow(/not an exact integer/);
    expect(dec(5).eq(dec('5'))).toBe(true);
  });

  it('prints plain text, never exponent notation', () => {
    expect(decToString(dec('1e-9'))).toBe('0.000000001');
    expect(decToString(dec('1e21'))).toBe('1000000000000000000000');
  });

  it('rounds to a step in each mode', () => {
    expect(decToString(roundToStep(dec('100.07'), dec('0.1'), 'down'))).toBe('100');
    expect(decToString(roundToStep(dec('100.07'), dec('0.1'), 'up'))).toBe('100.1');
    expect(decToString(roundToStep(dec('100.05'), dec('0.1'), 'nearest'))).toBe('100.1');
    expect(() => roundToStep(dec('1'), dec('0'))).toThrow(/positive/);
  });

  it('property: a rounded value is a multiple of the step and within one step', () => {
    const decimalText = fc
      .tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 9999 }))
      .map(([i, f]) => `${i}.${String(f).padStart(4, '0')}`);
    const step = fc.constantFrom('0.1', '0.01', '0.001', '0.5', '1', '0.0001');
    fc.assert(
      fc.property(decimalText, step, fc.constantFrom('down', 'up', 'nearest' as const), (v, s, mode) => {
        expect(isDecimalString(v)).toBe(true);
        const r = roundToStep(dec(v), dec(s), mode);
        expect(isMultipleOf(r, dec(s))).toBe(true);
        expect(r.minus(dec(v)).abs().lte(dec(s))).toBe(true);
        if (mode === 'down') expect(r.lte(dec(v))).toBe(true);
        if (mode === 'up') expect(r.gte(dec(v))).toBe(true);
      }),
    );
  });
});

// The exact reference: big.js with a division precision far beyond the digits these tests use.
const Exact = Big();
Exact.DP = 80;
Exact.RM = 0;

describe('isMultipleOf and roundToStep', () => {
  // Small coefficients take an integer fast path; it must agree with big.js's exact remainder.
  const decimalText = fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }))
    .map(([n, scale]) => {
      const digits = n.toString().padStart(scale + 1, '0');
      return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
    });
  it('agrees with big.js on any value and step', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (v, s) => {
        fc.pre(dec(s).gt(0));
        expect(isMultipleOf(dec(v), dec(s))).toBe(new Exact(v).mod(s).eq(0));
      }),
      { numRuns: 2000 },
    );
  });
  it('rounds to a step exactly in each mode, for any value and step, signed', () => {
    const modes = { down: 0, up: 3, nearest: 1 } as const;
    fc.assert(
      fc.property(decimalText, decimalText, fc.boolean(), fc.constantFrom('down', 'up', 'nearest' as const), (v, s, neg, mode) => {
        fc.pre(dec(s).gt(0));
        const value = neg ? `-${v}` : v;
        const expected = new Exact(value).div(s).round(0, modes[mode]).times(s);
        expect(roundToStep(dec(value), dec(s), mode).toFixed()).toBe(expected.toFixed());
      }),
      { numRuns: 2000 },
    );
  });
  it('rounds exactly where dividing first to 18 places would round twice', () => {
    // 0.30000000000000000000999 / 0.1 = 3.0000000000000000000999: toward zero it is 3, up it is 3.1.
    expect(roundToStep(dec('0.30000000000000000000999'), dec('0.1'), 'up').toFixed()).toBe('0.4');
    expect(roundToStep(dec('0.39999999999999999999999'), dec('0.1'), 'down').toFixed()).toBe('0.3');
  });
  it('decides the usual tick and step cases', () => {
    expect(isMultipleOf(dec('0.15'), dec('0.1'))).toBe(false);
    expect(isMultipleOf(dec('65000.5'), dec('0.1'))).toBe(true);
    expect(isMultipleOf(dec('0.0001'), dec('0.0001'))).toBe(true);
    expect(isMultipleOf(dec('0.000114'), dec('0.0001'))).toBe(false);
    expect(isMultipleOf(dec('0'), dec('0.5'))).toBe(true);
    expect(isMultipleOf(dec('123456789012345678.9'), dec('0.1'))).toBe(true);
  });
});
