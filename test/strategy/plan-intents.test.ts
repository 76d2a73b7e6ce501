// Plan (trigger) intents at the strategy boundary: ctx.place with a trigger price, and the
// position-attached stopLoss / takeProfit builders.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { StrategyError } from '../../src/core/errors.ts';
import { isProtectivePlan } from '../../src/core/intents.ts';
import { validateIntent } from '../../src/strategy/intent-schema.ts';
import { BTC, SPECS } from '../helpers/market.ts';
import { TEST_STRATEGY, testStrategyContext } from '../helpers/strategy-context.ts';

const S = TEST_STRATEGY;
const contextWith = testStrategyContext;

describe('plan intents', () => {
  it('ctx.place with a trigger price builds a plan order; a float trigger snaps to the tick', () => {
    const ctx = contextWith(dec(0));
    const i = ctx.place({ symbol: BTC, side: 'open_long', size: '0.01', triggerPrice: 65_000.04 });
    expect(i.triggerPrice?.toFixed()).toBe('65000');
    expect(i.price).toBeUndefined();
    expect(i.orderType).toBe('normal');
    expect(isProtectivePlan(i)).toBe(false);
  });

  it('refuses a trigger off the tick, a non-positive trigger, and a plan that is not normal', () => {
    const rules = { strategy: S, symbols: new Set([BTC]), specs: SPECS };
    const base = { kind: 'place', symbol: BTC, side: 'close_long', size: '0.01' };
    expect(() => validateIntent({ ...base, triggerPrice: '65000.05' }, rules)).toThrow(
      /trigger price .* tick/,
    );
    expect(() => validateIntent({ ...base, triggerPrice: '0' }, rules)).toThrow(StrategyError);
    expect(() => validateIntent({ ...base, triggerPrice: '65000', orderType: 'ioc' }, rules)).toThrow(
      /plan .* always normal/,
    );
  });

  it('stopLoss closes the whole leg by default, as a protective market plan', () => {
    const ctx = contextWith(dec('0.03'), dec('0.02'));
    const long = ctx.stopLoss({ symbol: BTC, leg: 'long', triggerPrice: '60000' });
    expect(long).toMatchObject({ side: 'close_long', tag: 'stop-loss' });
    expect(long?.size.toFixed()).toBe('0.03');
    expect(long?.triggerPrice?.toFixed()).toBe('60000');
    expect(long?.price).toBeUndefined();
    expect(isProtectivePlan(long!)).toBe(true);
    const short = ctx.takeProfit({
      symbol: BTC,
      leg: 'short',
      triggerPrice: 58_000,
      size: '0.01',
      price: '57990',
    });
    expect(short).toMatchObject({ side: 'close_short', tag: 'take-profit' });
    expect(short?.size.toFixed()).toBe('0.01');
    expect(short?.price?.toFixed()).toBe('57990');
    expect(isProtectivePlan(short!)).toBe(true);
  });

  it('gives nothing for a flat leg', () => {
    const ctx = contextWith(dec(0));
    expect(ctx.stopLoss({ symbol: BTC, leg: 'long', triggerPrice: '60000' })).toBeUndefined();
    expect(ctx.takeProfit({ symbol: BTC, leg: 'short', triggerPrice: '60000' })).toBeUndefined();
  });

  it('only close-side plans with the protective tags count as protective', () => {
    const p = { triggerPrice: dec(1), side: 'close_long', tag: 'stop-loss' };
    expect(isProtectivePlan(p)).toBe(true);
    expect(isProtectivePlan({ ...p, side: 'open_long' })).toBe(false);
    expect(isProtectivePlan({ ...p, tag: 'mine' })).toBe(false);
    const { triggerPrice: _t, ...regular } = p;
    expect(isProtectivePlan(regular)).toBe(false);
  });
});

describe('stops and targets attached to a placement', () => {
  it('snap to the tick and ride on the intent; refused on a closing order or a plan', () => {
    const ctx = contextWith(dec(0));
    const i = ctx.place({
      symbol: BTC,
      side: 'open_short',
      size: '0.01',
      stopLoss: 65_000.06,
      takeProfit: '60000',
    });
    expect(i.attach?.stopLoss?.toFixed()).toBe('65000.1');
    expect(i.attach?.takeProfit?.toFixed()).toBe('60000');
    expect(() => ctx.place({ symbol: BTC, side: 'close_long', size: '0.01', stopLoss: '60000' })).toThrow(
      /attach to an opening order/,
    );
    expect(() =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.01', triggerPrice: '66000', stopLoss: '60000' }),
    ).toThrow(/not a plan/);
    const rules = { strategy: S, symbols: new Set([BTC]), specs: SPECS };
    expect(() =>
      validateIntent(
        { kind: 'place', symbol: BTC, side: 'open_long', size: '0.01', takeProfit: '60000.05' },
        rules,
      ),
    ).toThrow(/takeProfit .* tick/);
    expect(ctx.place({ symbol: BTC, side: 'open_long', size: '0.01' }).attach).toBeUndefined();
  });
});
