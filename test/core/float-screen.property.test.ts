// The double screen of exact comparisons (src/core/float-screen.ts) only ever answers "certainly"
// when the exact values agree: over decimals of every scale the money type holds, equal values,
// values one unit apart in the 18th place, and sums of products (what the drawdown breaker
// estimates). It must also decide the comparisons that are not close, or it would save nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { surelyBelow, surelyBelowNearest } from '../../src/core/float-screen.ts';

/** A decimal text: up to 15 integer digits and up to 18 places, maybe negative. */
const decimalText = fc
  .tuple(
    fc.bigInt({ min: 0n, max: 10n ** 15n }),
    fc.integer({ min: 0, max: 18 }),
    fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }),
    fc.boolean(),
  )
  .map(([int, places, frac, negative]) => {
    const f = places === 0 ? '' : `.${(frac % 10n ** BigInt(places)).toString().padStart(places, '0')}`;
    return `${negative ? '-' : ''}${int}${f}`;
  });

/** A pair: unrelated, equal, or one unit of the last place apart (the closest calls). */
const pair = fc.oneof(
  fc.tuple(decimalText, decimalText),
  decimalText.map((a) => [a, a] as const),
  fc.tuple(decimalText, fc.constantFrom('1e-18', '1e-12', '1e-8', '-1e-18')).map(([a, d]) => {
    return [a, dec(a).plus(dec(d)).toFixed()] as const;
  }),
);

describe('surelyBelowNearest', () => {
  it('says "certainly below" only when the exact values are', () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        if (surelyBelowNearest(Number(a), Number(b))) expect(dec(a).lt(dec(b))).toBe(true);
        if (surelyBelowNearest(Number(b), Number(a))) expect(dec(b).lt(dec(a))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('decides comparisons that are not close (a part in a billion apart)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 1e12, noNaN: true }), (x) => {
        expect(surelyBelowNearest(x, x * (1 + 1e-9))).toBe(true);
        expect(surelyBelowNearest(x * (1 + 1e-9), x)).toBe(false);
        expect(surelyBelowNearest(-x * (1 + 1e-9), -x)).toBe(true);
      }),
    );
  });

  it('leaves close calls to the exact values: doubles closer than the margin are not decided', () => {
    // Adjacent doubles would be safe to decide for nearest doubles alone, but callers pass doubles a
    // few roundings off (the margin is what makes those safe): the screen keeps its margin for all.
    expect(surelyBelowNearest(1, 1 + 2 ** -45)).toBe(false);
    expect(surelyBelowNearest(-1 - 2 ** -45, -1)).toBe(false);
    expect(surelyBelowNearest(1, 1 + 2 ** -35)).toBe(true);
  });

  it('never decides NaN or a tie', () => {
    expect(surelyBelowNearest(Number.NaN, 1)).toBe(false);
    expect(surelyBelowNearest(1, Number.NaN)).toBe(false);
    expect(surelyBelowNearest(5, 5)).toBe(false);
    expect(surelyBelowNearest(0, 0)).toBe(false);
  });
});

describe('surelyBelow over a computed sum', () => {
  // Σ (qty × mark − cost) against a threshold, in doubles with the scale the sum's operands give,
  // and exactly: what the drawdown breaker's screen does with the open legs.
  const leg = fc.record({ qty: decimalText, mark: decimalText, cost: decimalText });
  it('says "certainly below" only when the exact sum is', () => {
    fc.assert(
      fc.property(fc.array(leg, { maxLength: 8 }), decimalText, fc.boolean(), (legs, threshold, near) => {
        let exact = dec(0);
        let estimate = 0;
        let scale = 0;
        for (const l of legs) {
          exact = exact.plus(dec(l.qty).times(dec(l.mark))).minus(dec(l.cost));
          const value = Number(l.qty) * Number(l.mark);
          estimate += value - Number(l.cost);
          scale += Math.abs(value) + Math.abs(Number(l.cost));
        }
        // A threshold right at the exact sum (the closest call there is), or an unrelated one.
        const t = near ? exact.toFixed() : threshold;
        const s = scale + Math.abs(Number(t)) + Math.abs(estimate);
        if (surelyBelow(estimate, Number(t), s)) expect(exact.lt(dec(t))).toBe(true);
        if (surelyBelow(Number(t), estimate, s)) expect(dec(t).lt(exact)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
