// The fixed-point money type against an exact decimal reference (big.js, DP 18, half away from zero:
// what capibot counted money with before). Values cover the three regimes of the type: small
// coefficients (number arithmetic), coefficients at the edge of 2^53 (the switch to bigints, where a
// float would silently round), and long ones (bigints), at scales from 0 to 30 places and with
// exponents.
import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDecimal, type RoundingMode } from '../../src/core/fixed-decimal.ts';

const B = Big();
B.DP = 18;
B.RM = 1;
B.NE = -7;
B.PE = 21;
B.strict = false;

const SAFE = Number.MAX_SAFE_INTEGER;

const coefficient = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }).map(String),
  fc.integer({ min: -3, max: 3 }).map((d) => String(SAFE + d)),
  fc.integer({ min: 1, max: 99 }).map((d) => String(SAFE - d * 1_000_000)),
  fc.bigInt({ min: 0n, max: 10n ** 32n }).map(String),
  fc.constantFrom('0', '1', '5', '10', '25', '50', '100', '999', '1000'),
);

/** A decimal literal: a coefficient at some scale, maybe signed, maybe written with an exponent. */
const literal = fc
  .tuple(
    coefficient,
    fc.integer({ min: 0, max: 30 }),
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
  )
  .map(([digits, scale, negative, exponent, withExponent]) => {
    const padded = digits.padStart(scale + 1, '0');
    const body =
      scale === 0
        ? padded
        : `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
    const text = withExponent ? `${body}e${exponent}` : body;
    return negative ? `-${text}` : text;
  });

const mode = fc.constantFrom<RoundingMode>(0, 1, 2, 3);

function same(actual: { toFixed(): string }, expected: Big): void {
  expect(actual.toFixed()).toBe(expected.toFixed());
}

/** The type's invariants: a number coefficient exactly when it is safe, no trailing zero when k > 0. */
function isCanonical(x: { m: number | bigint; k: number }): boolean {
  const safe =
    typeof x.m === 'number' ? Number.isSafeInteger(x.m) : x.m > BigInt(SAFE) || x.m < -BigInt(SAFE);
  const trailing = x.k > 0 && (typeof x.m === 'number' ? x.m % 10 === 0 : x.m % 10n === 0n);
  return safe && !trailing && x.k >= 0 && !Object.is(x.m, -0);
}

describe('FixedDecimal against big.js', () => {
  it('parses and prints every literal as big.js does (plain, toString, toJSON, toNumber)', () => {
    fc.assert(
      fc.property(literal, (s) => {
        const x = parseDecimal(s);
        const r = new B(s);
        same(x, r);
        expect(x.toString()).toBe(r.toString());
        expect(JSON.stringify({ x })).toBe(JSON.stringify({ x: r }));
        expect(x.toNumber()).toBe(Number(r.toString()));
      }),
      { numRuns: 250 },
    );
  });

  it('adds, subtracts and multiplies exactly', () => {
    fc.assert(
      fc.property(literal, literal, (a, b) => {
        const x = parseDecimal(a);
        const y = parseDecimal(b);
        same(x.plus(y), new B(a).plus(b));
        same(x.minus(y), new B(a).minus(b));
        same(x.times(y), new B(a).times(b));
        same(x.plus(b), new B(a).plus(b));
      }),
      { numRuns: 300 },
    );
  });

  it('divides to 18 places half away from zero, and takes remainders with the dividend sign', () => {
    fc.assert(
      fc.property(literal, literal, (a, b) => {
        fc.pre(!new B(b).eq(0));
        same(parseDecimal(a).div(b), new B(a).div(b));
        expect(isCanonical(parseDecimal(a).div(b))).toBe(true);
        same(parseDecimal(a).mod(b), new B(a).mod(b));
      }),
      { numRuns: 200 },
    );
  });

  it('divides a product by one factor back to the other exactly, in canonical form', () => {
    // The quotients a run divides most (a fill's value by its size, a percentage by 100) end within
    // 18 places: they take the number path, which must give big.js's value and the one representation.
    fc.assert(
      fc.property(literal, literal, fc.integer({ min: 0, max: 4 }), (a, b, p) => {
        const y = parseDecimal(b);
        fc.pre(y.m !== 0);
        const x = parseDecimal(a).times(y);
        for (const q of [x.div(y), x.div(b), parseDecimal(a).div(10 ** p), parseDecimal(a).div(y)]) {
          expect(isCanonical(q)).toBe(true);
        }
        same(x.div(y), new B(a).times(b).div(b));
        same(parseDecimal(a).div(10 ** p), new B(a).div(10 ** p));
        if (parseDecimal(a).k + y.k <= 18) expect(x.div(y).eq(a)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('compares as big.js (and equal values share one representation)', () => {
    fc.assert(
      fc.property(literal, literal, (a, b) => {
        const x = parseDecimal(a);
        const y = parseDecimal(b);
        const c = new B(a).cmp(b);
        expect(x.cmp(y)).toBe(c);
        expect([x.eq(y), x.gt(y), x.gte(y), x.lt(y), x.lte(y)]).toEqual([
          c === 0,
          c > 0,
          c >= 0,
          c < 0,
          c <= 0,
        ]);
        if (c === 0) expect([x.m, x.k]).toEqual([y.m, y.k]);
        expect(x.sign()).toBe(new B(a).cmp(0));
      }),
      { numRuns: 300 },
    );
  });

  it('rounds to any number of places in every mode, and pads toFixed(dp)', () => {
    fc.assert(
      fc.property(literal, fc.integer({ min: -6, max: 32 }), mode, (a, dp, rm) => {
        same(parseDecimal(a).round(dp, rm), new B(a).round(dp, rm));
        if (dp >= 0) expect(parseDecimal(a).toFixed(dp, rm)).toBe(new B(a).toFixed(dp, rm));
      }),
      { numRuns: 400 },
    );
  });

  it('takes absolute values, negations and integer powers as big.js, and correctly rounded square roots', () => {
    const small = fc
      .tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.integer({ min: 0, max: 6 }))
      .map(([m, k]) => new B(m).div(new B(10).pow(k)).toFixed());
    fc.assert(
      fc.property(literal, small, fc.integer({ min: -4, max: 6 }), (a, s, n) => {
        same(parseDecimal(a).abs(), new B(a).abs());
        same(parseDecimal(a).neg(), new B(a).neg());
        fc.pre(n >= 0 || !new B(s).eq(0));
        same(parseDecimal(s).pow(n), new B(s).pow(n));
        // big.js's own sqrt rounds twice (its Newton steps run at DP + 4), so the reference is the
        // definition: the result r is the 18-place value with (r − ½ulp)² ≤ x < (r + ½ulp)².
        const x = new B(a).abs();
        const r = new B(parseDecimal(x.toFixed()).sqrt().toFixed());
        const halfUlp = new B('5e-19');
        const below = r.minus(halfUlp);
        if (below.gt(0)) expect(below.times(below).lte(x)).toBe(true);
        expect(r.plus(halfUlp).times(r.plus(halfUlp)).gt(x)).toBe(true);
        expect(r.round(18).eq(r)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('stays a number while the coefficient is a safe integer and switches to a bigint exactly past it', () => {
    const max = parseDecimal(String(SAFE));
    expect(typeof max.m).toBe('number');
    const past = max.plus(1);
    expect(typeof past.m).toBe('bigint');
    expect(past.toFixed()).toBe('9007199254740992');
    expect(past.plus(1).toFixed()).toBe('9007199254740993'); // a double would print …992
    expect(typeof past.minus(1).m).toBe('number');
    expect(max.times(max).toFixed()).toBe(new B(SAFE).times(SAFE).toFixed());
    expect(parseDecimal('-0.000').toFixed()).toBe('0');
    expect(parseDecimal('1.50').k).toBe(1);
  });

  it('keeps big.js’s sign of a negative value rounded to zero in toFixed(dp)', () => {
    expect(parseDecimal('-0.001').toFixed(2)).toBe(new B('-0.001').toFixed(2));
    expect(parseDecimal('-0.001').round(2).toFixed(2)).toBe(new B('-0.001').round(2).toFixed(2));
  });

  it('refuses what big.js refuses: division by zero, bad literals, modes and places', () => {
    expect(() => parseDecimal('1').div(0)).toThrow(/division by zero/);
    expect(() => parseDecimal('1').mod('0.0')).toThrow(/division by zero/);
    expect(() => parseDecimal('1e1234')).toThrow(/not a decimal/);
    expect(() => parseDecimal('1.2.3')).toThrow(/not a decimal/);
    expect(() => parseDecimal('').plus(1)).toThrow(/not a decimal/);
    expect(() => parseDecimal('1').round(0, 4 as RoundingMode)).toThrow(/rounding mode/);
    expect(() => parseDecimal('1').round(0.5)).toThrow(/decimal places/);
    expect(() => parseDecimal('1').toFixed(-1)).toThrow(/decimal places/);
    expect(() => parseDecimal('-4').sqrt()).toThrow(/negative/);
    expect(() => parseDecimal('2').pow(0.5)).toThrow(/exponent/);
    expect(() => parseDecimal('1').plus(Number.NaN)).toThrow(/not a decimal/);
  });
});
