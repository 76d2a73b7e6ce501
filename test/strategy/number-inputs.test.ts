// Signals in floats, orders exact: ctx.place, roundPrice and roundSize take numbers and snap them to
// the tick and step exactly (prices to the nearest tick, sizes down), so no float reaches the wire.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, roundToStep } from '../../src/core/decimal.ts';
import { StrategyError } from '../../src/core/errors.ts';
import { validateIntent } from '../../src/strategy/intent-schema.ts';
import { BTC, SPECS } from '../helpers/market.ts';
import { TEST_STRATEGY, testStrategyContext } from '../helpers/strategy-context.ts';

const S = TEST_STRATEGY;
const ctx = testStrategyContext();

describe('number inputs of the strategy context', () => {
  it('snaps a float price to the nearest tick and a float size down to the step, exactly', () => {
    // BTC in the helpers: tick 0.1, step 0.001.
    const i = ctx.place({ symbol: BTC, side: 'open_long', size: 0.0129, price: 64_000.06 });
    expect(i.price?.toFixed()).toBe('64000.1');
    expect(i.size.toFixed()).toBe('0.012');
    // 0.1 + 0.2 is 0.30000000000000004 as a float: still 0.3 on the grid.
    expect(ctx.roundPrice(BTC, 0.1 + 0.2).toFixed()).toBe('0.3');
    expect(ctx.roundSize(BTC, 0.1 + 0.2).toFixed()).toBe('0.3');
    expect(ctx.roundPrice(BTC, 100.04, 'up').toFixed()).toBe('100.1');
  });

  it('gives the same order for a float as for the decimal it prints as (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.double({ min: 0.001, max: 100, noNaN: true }),
        (price, size) => {
          const fromNumbers = ctx.place({ symbol: BTC, side: 'open_short', size, price });
          const tick = SPECS.get(BTC)!.priceTick;
          const step = SPECS.get(BTC)!.sizeStep;
          expect(fromNumbers.price?.eq(roundToStep(dec(String(price)), tick, 'nearest'))).toBe(true);
          expect(fromNumbers.size.eq(roundToStep(dec(String(size)), step, 'down'))).toBe(true);
        },
      ),
    );
  });

  it('refuses NaN, infinities and a size that snaps below the minimum, by name', () => {
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: Number.NaN })).toThrow(/size must be/);
    expect(() =>
      ctx.place({ symbol: BTC, side: 'open_long', size: 1, price: Number.POSITIVE_INFINITY }),
    ).toThrow(/price must be/);
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: 0.0004 })).toThrow(StrategyError);
  });

  it('never takes a number in a raw intent (only the context snaps numbers)', () => {
    const rules = { strategy: S, symbols: new Set([BTC]), specs: SPECS };
    expect(() => validateIntent({ kind: 'place', symbol: BTC, side: 'open_long', size: 0.5 }, rules)).toThrow(
      /Dec or a decimal string/,
    );
  });
});
