import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import {
  DEFAULT_RISK_LIMITS,
  TRADING_STATES,
  drawdownPct,
  engageKillSwitch,
  resetTradingState,
  stricter,
  updateTradingState,
  type TradingState,
} from '../../src/risk/index.ts';

const SEVERITY: Record<TradingState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };
const arbState = fc.constantFrom(...TRADING_STATES);
const arbEquity = fc.integer({ min: -1_000, max: 20_000 }).map((n) => dec(n));

describe('drawdown breaker', () => {
  it('never relaxes the state, and gets stricter as equity falls', () => {
    fc.assert(
      fc.property(arbState, arbEquity, arbEquity, arbEquity, (state, peak, a, b) => {
        const [hi, lo] = a.gte(b) ? [a, b] : [b, a];
        const atHi = updateTradingState(state, peak, hi, DEFAULT_RISK_LIMITS);
        const atLo = updateTradingState(state, peak, lo, DEFAULT_RISK_LIMITS);
        expect(SEVERITY[atHi]).toBeGreaterThanOrEqual(SEVERITY[state]);
        expect(SEVERITY[atLo]).toBeGreaterThanOrEqual(SEVERITY[atHi]);
      }),
      { numRuns: 300 },
    );
  });

  it('decides as the drawdown percentage would, compared without dividing', () => {
    // Cents on both sides and thresholds with two decimals: the quotient's 18 places decide alike.
    const cents = fc.integer({ min: -100_000, max: 2_000_000 }).map((n) => dec(n).div(100));
    const pct = fc.integer({ min: 1, max: 10_000 }).map((n) => dec(n).div(100));
    fc.assert(
      fc.property(arbState, cents, cents, pct, pct, (state, peak, now, a, b) => {
        const [reduce, halt] = a.lte(b) ? [a, b] : [b, a];
        const limits = { drawdownReducePct: reduce, drawdownHaltPct: halt };
        const dd = drawdownPct(peak, now);
        const byQuotient: TradingState = now.lte(0)
          ? 'HALTED'
          : stricter(state, dd.gte(halt) ? 'HALTED' : dd.gte(reduce) ? 'REDUCING' : 'ACTIVE');
        expect(updateTradingState(state, peak, now, limits)).toBe(byQuotient);
      }),
      { numRuns: 2_000 },
    );
  });

  it('moves exactly at the thresholds (5 % REDUCING, 10 % HALTED by default)', () => {
    const peak = dec('10000');
    expect(updateTradingState('ACTIVE', peak, dec('9500.01'), DEFAULT_RISK_LIMITS)).toBe('ACTIVE');
    expect(updateTradingState('ACTIVE', peak, dec('9500'), DEFAULT_RISK_LIMITS)).toBe('REDUCING');
    expect(updateTradingState('ACTIVE', peak, dec('9000.01'), DEFAULT_RISK_LIMITS)).toBe('REDUCING');
    expect(updateTradingState('ACTIVE', peak, dec('9000'), DEFAULT_RISK_LIMITS)).toBe('HALTED');
  });

  it('halts when equity is gone, and latches until an operator reset', () => {
    expect(updateTradingState('ACTIVE', dec('100'), dec('0'), DEFAULT_RISK_LIMITS)).toBe('HALTED');
    expect(updateTradingState('HALTED', dec('100'), dec('100'), DEFAULT_RISK_LIMITS)).toBe('HALTED');
    expect(updateTradingState('REDUCING', dec('100'), dec('120'), DEFAULT_RISK_LIMITS)).toBe('REDUCING');
    expect(resetTradingState()).toBe('ACTIVE');
  });

  it('measures drawdown from the higher of peak and now', () => {
    expect(drawdownPct(dec('200'), dec('150')).eq(25)).toBe(true);
    expect(drawdownPct(dec('100'), dec('150')).eq(0)).toBe(true);
    expect(stricter('REDUCING', 'ACTIVE')).toBe('REDUCING');
  });

  it('the kill switch halts and cancels everything', () => {
    expect(engageKillSwitch()).toEqual({ state: 'HALTED', intents: [{ kind: 'cancelAll' }] });
  });
});
