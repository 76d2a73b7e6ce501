// The rules of the fixed-point money type that the big.js comparison cannot see: values a venue sends
// are computed on numbers (never bigints), the switch to bigints happens exactly at 2^53, the
// representation is canonical (no negative zero, no trailing zeros, numbers while safe), literal
// forms, exact half-way cases in each rounding mode, limits, and values from another copy of capibot.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decMax, decMin, decSum, decToNumber, isMultipleOf, roundToStep } from '../../src/core/decimal.ts';
import {
  bigintStepCount,
  decimalArg,
  divideRounded,
  FixedDecimal,
  isDecimalLiteral,
  isFixedDecimal,
  parseDecimal as d,
  type RoundingMode,
} from '../../src/core/fixed-decimal.ts';

const SAFE = Number.MAX_SAFE_INTEGER;

/** Runs `f` and returns how many bigint steps it took. */
function bigintStepsOf(f: () => unknown): number {
  const before = bigintStepCount();
  f();
  return bigintStepCount() - before;
}

describe('FixedDecimal: the number path', () => {
  const venueValue = fc
    .tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: 0, max: 8 }))
    .map(([m, k]) => FixedDecimal.make(m, k));

  it('computes values with few digits (prices, sizes, fees) without a single bigint', () => {
    fc.assert(
      fc.property(venueValue, venueValue, fc.integer({ min: -2, max: 8 }), (a, b, dp) => {
        const steps = bigintStepsOf(() => {
          a.plus(b);
          a.minus(b);
          a.times(b);
          a.cmp(b);
          a.round(dp, 0);
          a.round(dp, 1);
          a.toFixed(Math.max(0, dp));
          a.toNumber();
          d(a.toFixed());
          if (b.sign() !== 0) a.mod(b);
          if (b.sign() > 0) {
            roundToStep(a, b, 'nearest');
            isMultipleOf(a, b);
          }
        });
        // A negative dp rounds to a multiple of 10^-dp: the one place a bigint may appear.
        expect(steps).toBe(dp < 0 ? 2 * bigintStepsOf(() => a.round(dp, 0)) : 0);
      }),
      { numRuns: 300 },
    );
  });

  it('divides without a bigint when the quotient ends within 18 places (a value by its size, a percentage by 100)', () => {
    fc.assert(
      fc.property(venueValue, venueValue, (a, b) => {
        fc.pre(b.sign() !== 0);
        const product = a.times(b);
        let q = a;
        expect(bigintStepsOf(() => (q = product.div(b)))).toBe(0);
        expect(q.eq(a)).toBe(true);
        expect(bigintStepsOf(() => a.div(100))).toBe(0);
        expect(bigintStepsOf(() => a.div(-8))).toBe(0);
      }),
      { numRuns: 300 },
    );
    // 4.5 ÷ 0.0003 = 15000: a quotient with fewer places than its divisor (k goes below zero).
    expect(bigintStepsOf(() => expect(d('4.5').div('0.0003').toFixed()).toBe('15000'))).toBe(0);
    expect(d('4').div('0.0008').toFixed()).toBe('5000');
    // Exactly 18 places is still exact; a 19th needs rounding.
    expect(bigintStepsOf(() => expect(d('1e-18').div(1).toFixed()).toBe('0.000000000000000001'))).toBe(0);
    expect(bigintStepsOf(() => expect(d('3e-17').div(30).toFixed()).toBe('0.000000000000000001'))).toBe(0);
    // A quotient that does not end (1 ÷ 3), or ends beyond 18 places, is rounded on bigints.
    expect(bigintStepsOf(() => d('1').div(3))).toBeGreaterThan(0);
    expect(
      bigintStepsOf(() => expect(d('1e-15').div(2000).toFixed()).toBe('0.000000000000000001')),
    ).toBeGreaterThan(0);
    // A quotient whose coefficient outgrows 2^53 − 1 as it is scaled goes to bigints too.
    expect(d(String(SAFE)).div(7).toFixed()).toBe('1286742750677284.428571428571428571');
  });

  it('switches to bigints exactly past 2^53 − 1, in both directions and both signs', () => {
    const max = FixedDecimal.make(SAFE, 0);
    expect(bigintStepsOf(() => expect(d(String(SAFE - 1)).plus(1).m).toBe(SAFE))).toBe(0);
    expect(bigintStepsOf(() => expect(d(String(-SAFE + 1)).minus(1).m).toBe(-SAFE))).toBe(0);
    expect(bigintStepsOf(() => expect(max.times(1).m).toBe(SAFE))).toBe(0);
    expect(bigintStepsOf(() => expect(max.plus(1).m).toBe(BigInt(SAFE) + 1n))).toBeGreaterThan(0);
    expect(max.neg().minus(1).m).toBe(-BigInt(SAFE) - 1n);
    expect(d(String(2 ** 26)).times(2 ** 27).m).toBe(2n ** 53n);
    // Back from bigints: a safe result is a number again, at +MAX and at −MAX.
    expect(max.plus(1).minus(1).m).toBe(SAFE);
    expect(max.neg().minus(1).plus(1).m).toBe(-SAFE);
    expect(bigintStepsOf(() => expect(d('9007199254740993').m).toBe(9007199254740993n))).toBe(1);
    expect(d('9007199254740991').m).toBe(SAFE);
    expect(d('-9007199254740991.0').m).toBe(-SAFE);
    expect(d('0.0000000000000000000000001').m).toBe(1);
  });

  it('aligns scales on numbers while the power of ten is exact, and on bigints past it', () => {
    expect(bigintStepsOf(() => expect(FixedDecimal.ZERO.plus('1e-22').k).toBe(22))).toBe(0);
    expect(bigintStepsOf(() => expect(FixedDecimal.ZERO.plus('1e-23').k).toBe(23))).toBeGreaterThan(0);
    expect(bigintStepsOf(() => d('1.5').cmp('1.25'))).toBe(0);
    expect(bigintStepsOf(() => d('1').round(23))).toBe(0);
    expect(bigintStepsOf(() => d('1e-30').round(2))).toBeGreaterThan(0);
    expect(d('1e-30').round(2, 3).toFixed()).toBe('0.01');
    expect(d('-1e-30').round(2, 3).toFixed()).toBe('-0.01');
  });
});

describe('FixedDecimal: canonical form', () => {
  it('has one zero: no negative zero from literals, negation, products or sums', () => {
    for (const z of [
      d('-0'),
      d('-0.000'),
      d('0e5'),
      FixedDecimal.ZERO.neg(),
      d('-5').times(0),
      d('-1').plus(1),
    ]) {
      expect(Object.is(z.m, 0)).toBe(true);
      expect(z.k).toBe(0);
      expect(z.toString()).toBe('0');
    }
    expect(FixedDecimal.ZERO.neg()).toBe(FixedDecimal.ZERO);
    expect(FixedDecimal.ZERO.abs()).toBe(FixedDecimal.ZERO);
  });

  it('drops trailing zeros, so equal values share one representation', () => {
    expect([d('1.50').m, d('1.50').k]).toEqual([15, 1]);
    expect([d('1500').m, d('1500').k]).toEqual([1500, 0]);
    expect([d('2.5').times(4).m, d('2.5').times(4).k]).toEqual([10, 0]);
    const bigTen = d('12345678901234567890.10');
    expect([bigTen.m, bigTen.k]).toEqual([1234567890123456789010n / 10n, 1]);
  });

  it('compares equal values written differently as equal, and numbers with bigints', () => {
    expect(d('1.50').cmp('1.5')).toBe(0);
    expect(d('7').cmp(d('7'))).toBe(0);
    expect(d('-7.25').cmp('-7.250')).toBe(0);
    expect(d('9007199254740992').cmp(SAFE)).toBe(1);
    expect(d(String(SAFE)).cmp('9007199254740992')).toBe(-1);
    expect(d('1e-30').cmp(0)).toBe(1);
    expect(d('-1e-30').cmp('1e-31')).toBe(-1);
    expect([d('2').gte(2), d('2').lte(2), d('2').gt(2), d('2').lt(2)]).toEqual([true, true, false, false]);
    expect([d('2.0').eq('2'), d('2').eq('2.01'), d('-2').eq(2)]).toEqual([true, false, false]);
    expect([d('3').gte(2), d('1').lte(2), d('3').lte(2), d('1').gte(2)]).toEqual([true, true, false, false]);
  });
});

describe('FixedDecimal: literals', () => {
  it('reads every literal form big.js reads, and refuses exponents beyond 3 digits', () => {
    for (const [text, plain] of [
      ['.5', '0.5'],
      ['-.55', '-0.55'],
      ['5.', '5'],
      ['1e10', '10000000000'],
      ['1.5E-3', '0.0015'],
      ['2e+2', '200'],
      ['1e100', `1${'0'.repeat(100)}`],
      ['00012.3400', '12.34'],
    ] as const) {
      expect(isDecimalLiteral(text)).toBe(true);
      expect(d(text).toFixed()).toBe(plain);
    }
    for (const bad of ['1e1000', '', '-', '.', 'e5', '1.2.3', '+1', '1 ', '0x10', 'NaN', 'Infinity']) {
      expect(isDecimalLiteral(bad)).toBe(false);
      expect(() => d(bad)).toThrow(/not a decimal/);
    }
    expect(() => decimalArg(Number.NaN)).toThrow(/not a decimal/);
    expect(() => decimalArg(Number.POSITIVE_INFINITY)).toThrow(/not a decimal/);
    expect(decimalArg(0.1).toFixed()).toBe('0.1');
    expect(decimalArg(1e21).toFixed()).toBe(`1${'0'.repeat(21)}`);
    expect(decimalArg(-5).m).toBe(-5);
  });

  it('prints toString as big.js: exponents from 1e21 and below 1e-6, plain between', () => {
    expect(d('1e21').toString()).toBe('1e+21');
    expect(d('-1230000000000000000000').toString()).toBe('-1.23e+21');
    expect(d('999999999999999999999').toString()).toBe('999999999999999999999');
    expect(d('1e-7').toString()).toBe('1e-7');
    expect(d('-1.5e-7').toString()).toBe('-1.5e-7');
    expect(d('0.000001').toString()).toBe('0.000001');
    expect(d('1e-7').toFixed()).toBe('0.0000001');
    expect(d('-2.5').valueOf()).toBe('-2.5');
    expect(d('1e21').toJSON()).toBe('1e+21');
    expect(String(d('12.5'))).toBe('12.5');
  });

  it('pads toFixed(dp) to exactly dp places', () => {
    expect(d('12').toFixed(2)).toBe('12.00');
    expect(d('12.5').toFixed(3)).toBe('12.500');
    expect(d('12.345').toFixed(0)).toBe('12');
    expect(d('0.005').toFixed(2)).toBe('0.01');
    expect(d('-0.005').toFixed(2, 0)).toBe('-0.00');
    expect(d('1').toFixed(1e6)).toHaveLength(1e6 + 2);
    expect(() => d('1').toFixed(1e6 + 1)).toThrow(/decimal places/);
  });
});

describe('FixedDecimal: rounding exactly half-way', () => {
  const cases: readonly [string, RoundingMode, string][] = [
    ['2.5', 0, '2'],
    ['2.5', 1, '3'],
    ['2.5', 2, '2'],
    ['3.5', 2, '4'],
    ['2.5', 3, '3'],
    ['-2.5', 1, '-3'],
    ['-2.5', 2, '-2'],
    ['-3.5', 2, '-4'],
    ['-2.5', 0, '-2'],
    ['-2.1', 3, '-3'],
    ['2.4999', 1, '2'],
    ['2.5001', 2, '3'],
    ['2.4999', 2, '2'],
    ['123456789012345678.5', 1, '123456789012345679'],
    ['123456789012345678.5', 2, '123456789012345678'],
    ['123456789012345677.5', 2, '123456789012345678'],
    ['-123456789012345678.5', 1, '-123456789012345679'],
    ['-123456789012345678.5', 2, '-123456789012345678'],
    ['123456789012345678.4', 1, '123456789012345678'],
    ['123456789012345678.6', 2, '123456789012345679'],
    ['123456789012345678.1', 3, '123456789012345679'],
    ['123456789012345678.9', 0, '123456789012345678'],
  ];
  it.each(cases)('rounds %s in mode %i to %s', (value, rm, expected) => {
    expect(d(value).round(0, rm).toFixed()).toBe(expected);
  });

  it('divides exactly without a rounding step when the quotient is whole', () => {
    expect(divideRounded(10n, 5n, 3)).toBe(2n);
    expect(divideRounded(-10n, 5n, 3)).toBe(-2n);
    expect(divideRounded(11n, 5n, 3)).toBe(3n);
    expect(divideRounded(-11n, 5n, 3)).toBe(-3n);
    expect(divideRounded(11n, -5n, 3)).toBe(-3n);
    expect(divideRounded(-11n, -5n, 1)).toBe(2n);
    expect(roundToStep(d('123456789012345678901'), d('1'), 'up').toFixed()).toBe('123456789012345678901');
    expect(roundToStep(d('123456789012345678901.5'), d('1'), 'down').toFixed()).toBe('123456789012345678901');
    expect(d('1').div(4).toFixed()).toBe('0.25');
    expect(d('-1').div(3).toFixed()).toBe('-0.333333333333333333');
    expect(d('2').div(3).toFixed()).toBe('0.666666666666666667');
    expect(d('0').div(-3).toFixed()).toBe('0');
  });

  it('rounds to tens and hundreds with a negative dp', () => {
    expect(d('1250').round(-2, 1).toFixed()).toBe('1300');
    expect(d('1250').round(-2, 2).toFixed()).toBe('1200');
    expect(d('-1249.9').round(-1, 0).toFixed()).toBe('-1240');
    expect(d('10').round(-1, 3).toFixed()).toBe('10');
    expect(d('-1200').round(-2, 3).toFixed()).toBe('-1200');
  });
});

describe('FixedDecimal: limits and the rest of big.js’s API', () => {
  it('takes exponents and places within ±1e6 only', () => {
    expect(d('1').pow(1e6).toFixed()).toBe('1');
    expect(d('1').pow(-1e6).toFixed()).toBe('1');
    expect(() => d('1').pow(1e6 + 1)).toThrow(/exponent/);
    expect(() => d('1').pow(-1e6 - 1)).toThrow(/exponent/);
    expect(d('2').pow(10).toFixed()).toBe('1024');
    expect(d('-2').pow(3).toFixed()).toBe('-8');
    expect(d('2').pow(-2).toFixed()).toBe('0.25');
    expect(d('7').pow(0).toFixed()).toBe('1');
    expect(d('1.5').round(1e6)).toEqual(d('1.5'));
    expect(() => d('1').round(1e6 + 1)).toThrow(/decimal places/);
    expect(() => d('1').round(-1e6 - 1)).toThrow(/decimal places/);
  });

  it('takes square roots at the edges of its two branches', () => {
    expect(d('2e-36').sqrt().toFixed()).toBe('0.000000000000000001');
    expect(d('3e-36').sqrt().toFixed()).toBe('0.000000000000000002');
    expect(d('1e-36').sqrt().toFixed()).toBe('0.000000000000000001');
    expect(d('4e-38').sqrt().toFixed()).toBe('0');
    expect(d('2.5e-37').sqrt().toFixed()).toBe('0.000000000000000001');
    expect(d('1e-40').sqrt().toFixed()).toBe('0');
    expect(d('0').sqrt().toFixed()).toBe('0');
    expect(d('1').sqrt().toFixed()).toBe('1');
    expect(d('2').sqrt().toFixed()).toBe('1.414213562373095049');
    expect(d('0.0625').sqrt().toFixed()).toBe('0.25');
  });

  it('takes square roots of values with more than 36 places, odd and even, as defined', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), fc.integer({ min: 37, max: 45 }), (m, k) => {
        const x = FixedDecimal.make(m, k);
        const r = x.sqrt();
        // (r − ½ulp)² ≤ x < (r + ½ulp)², ulp = 1e-18, checked exactly.
        const half = d('5e-19');
        const below = r.minus(half);
        if (below.sign() > 0) expect(below.times(below).lte(x)).toBe(true);
        expect(r.plus(half).times(r.plus(half)).gt(x)).toBe(true);
        expect(r.k).toBeLessThanOrEqual(18);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps big.js’s aliases and remainders with the dividend’s sign', () => {
    expect(d('1.5').add('1').toFixed()).toBe('2.5');
    expect(d('1.5').sub('1').toFixed()).toBe('0.5');
    expect(d('1.5').mul('3').toFixed()).toBe('4.5');
    expect(d('-7.5').mod('2').toFixed()).toBe('-1.5');
    expect(d('7.5').mod('-2').toFixed()).toBe('1.5');
    expect(d('123456789012345678901').mod('10').toFixed()).toBe('1');
    expect(d('-2').abs().toFixed()).toBe('2');
    expect(d('2').abs().toFixed()).toBe('2');
  });
});

describe('FixedDecimal: values from another copy of capibot', () => {
  const foreign = { [Symbol.for('capibot.fixed-decimal')]: true, toFixed: () => '1.5', toString: () => 'x' };

  it('recognises them by their brand and reads them exactly from their plain text', () => {
    expect(isFixedDecimal(foreign)).toBe(true);
    expect(decimalArg(foreign as unknown as FixedDecimal).toFixed()).toBe('1.5');
    expect(
      d('1')
        .plus(foreign as unknown as FixedDecimal)
        .toFixed(),
    ).toBe('2.5');
    expect((d('2') as unknown as Record<symbol, unknown>)[Symbol.for('capibot.fixed-decimal')]).toBe(true);
  });

  it('recognises nothing else', () => {
    for (const v of [
      null,
      undefined,
      '1.5',
      1.5,
      {},
      { toFixed: () => '1' },
      { [Symbol.for('capibot.fixed-decimal')]: 1 },
    ]) {
      expect(isFixedDecimal(v)).toBe(false);
    }
    const x = d('3.25');
    expect(decimalArg(x)).toBe(x);
    expect(isFixedDecimal(x)).toBe(true);
  });
});

describe('decimal helpers on the fixed-point type', () => {
  it('never takes a float product past 2^53 for exact (1801439850948199 × 10 is not a double)', () => {
    // 18014398509481990 lies between two doubles: a remainder computed from either would be wrong.
    expect(d('1801439850948199').mod('0.3').toFixed()).toBe('0.1');
    expect(d('1801439850948199').mod('1.3').toFixed()).toBe('0.5');
    expect(d('1801439850948199').plus('0.1').toFixed()).toBe('1801439850948199.1');
    expect(d('1801439850948199').cmp('1801439850948198.9')).toBe(1);
    expect(isMultipleOf(d('1801439850948199'), d('0.3'))).toBe(false);
    expect(isMultipleOf(d('1801439850948199'), d('0.7'))).toBe(true);
    expect(isMultipleOf(d('1801439850948199'), d('0.1'))).toBe(true);
    expect(roundToStep(d('1801439850948199.04'), d('0.1'), 'up').toFixed()).toBe('1801439850948199.1');
  });

  it('rounds exact multiples to themselves in every mode, on numbers and on bigints', () => {
    for (const mode of ['down', 'up', 'nearest'] as const) {
      expect(roundToStep(d('100.5'), d('0.5'), mode).toFixed()).toBe('100.5');
      expect(roundToStep(d('-100.5'), d('0.5'), mode).toFixed()).toBe('-100.5');
      expect(roundToStep(d('123456789012345678900.5'), d('0.5'), mode).toFixed()).toBe(
        '123456789012345678900.5',
      );
    }
    expect(roundToStep(d('100.25'), d('0.5')).toFixed()).toBe('100.5');
    expect(roundToStep(d('-100.2'), d('0.5'), 'up').toFixed()).toBe('-100.5');
    expect(isMultipleOf(d('123456789012345678900.5'), d('0.5'))).toBe(true);
    expect(isMultipleOf(d('123456789012345678900.5'), d('0.2'))).toBe(false);
    expect(() => roundToStep(d('1'), d('-0.5'))).toThrow(/positive/);
  });

  it('takes minima, maxima, sums and float views', () => {
    expect(decMin(d('1.5'), d('2')).toFixed()).toBe('1.5');
    expect(decMin(d('2'), d('1.5')).toFixed()).toBe('1.5');
    expect(decMax(d('1.5'), d('2')).toFixed()).toBe('2');
    expect(decMax(d('2'), d('1.5')).toFixed()).toBe('2');
    expect(decSum([d('0.1'), d('0.2'), d('-0.05')]).toFixed()).toBe('0.25');
    expect(decSum([]).toFixed()).toBe('0');
    expect(decToNumber(d('0.1'))).toBe(0.1);
    expect(decToNumber(d('-123456789012345678901.5'))).toBe(Number('-123456789012345678901.5'));
    expect(decToNumber(d('1e-30'))).toBe(1e-30);
  });
});
