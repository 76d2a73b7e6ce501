// The drawdown breaker's double screen (TradingGuard.surelyUnchanged over Portfolio.netEstimate)
// must only ever say "nothing changes" when the exact breaker (onNetPnl) changes nothing: no state
// change and no new peak saved. Checked over random books (strategies, symbols, legs, partial closes
// with 18-place cost shares), marks, starting equities, states and limits, with peaks placed right at
// the edges: equal to the equity, at the reduce and halt floors exactly, a hair either side of them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, type Dec } from '../../src/core/decimal.ts';
import { orderId, strategyId, symbolId, tradeId, type SymbolId } from '../../src/core/ids.ts';
import { ORDER_SIDES } from '../../src/core/orders.ts';
import type { FillReport } from '../../src/core/reports.ts';
import type { NetEstimate } from '../../src/engine/account-totals.ts';
import { Portfolio } from '../../src/engine/portfolio.ts';
import { EQUITY_PEAK_META, TRADING_STATE_META, TradingGuard } from '../../src/engine/trading-guard.ts';
import { riskLimits } from '../../src/risk/limits.ts';
import { TRADING_STATES } from '../../src/risk/trading-state.ts';

const SYMBOLS = [symbolId('cmt_btcusdt'), symbolId('cmt_ethusdt')];

const decimal = (max: number, places: number): fc.Arbitrary<Dec> =>
  fc.integer({ min: 0, max: max * 10 ** places }).map((n) => dec(n).div(10 ** places));

const fillArb = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  side: fc.constantFrom(...ORDER_SIDES),
  size: decimal(3, 3),
  price: decimal(100_000, 1),
  fee: decimal(5, 6),
});

/** Where the peak sits against the equity: anywhere, or at one of the edges the breaker decides at. */
const edgeArb = fc.constantFrom('free', 'equal', 'reduce', 'halt', 'reduce+', 'reduce-', 'halt+', 'halt-');

class Meta {
  readonly values = new Map<string, string>();
  getMeta(key: string): string | undefined {
    return this.values.get(key);
  }
  setMeta(key: string, value: string): void {
    this.values.set(key, value);
  }
}

/** The peak for which equity is exactly at `pct` % drawdown: equity × 100 ÷ (100 − pct). */
const floorPeak = (equity: Dec, pct: Dec): Dec => equity.times(100).div(dec(100).minus(pct));

describe('the drawdown breaker screened in doubles', () => {
  it('says "unchanged" only when the exact breaker changes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fillArb, { maxLength: 12 }),
        fc.record({ btc: decimal(100_000, 2), eth: fc.option(decimal(5_000, 2), { nil: undefined }) }),
        decimal(50_000, 2).map((d) => d.plus(1)),
        fc.constantFrom(...TRADING_STATES),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        edgeArb,
        decimal(20_000, 4),
        (fills, markTable, start, state, reduce, extra, edge, freePeak) => {
          const p = new Portfolio();
          fills.forEach((f, i) => {
            const fill: FillReport = {
              tradeId: tradeId(String(i + 1)),
              orderId: orderId(String(i + 1)),
              symbol: f.symbol,
              positionSide: f.side.endsWith('long') ? 'LONG' : 'SHORT',
              orderSide: f.side === 'open_long' || f.side === 'close_short' ? 'BUY' : 'SELL',
              direction: f.side.toUpperCase(),
              size: f.size,
              value: f.size.times(f.price),
              fee: f.fee,
              realizedPnl: dec(0),
              createdTime: i,
            };
            p.applyFill(fill, strategyId('s'), f.side);
          });
          const marks = (s: SymbolId): Dec | undefined => (s === SYMBOLS[0] ? markTable.btc : markTable.eth);
          const limits = riskLimits({
            drawdownReducePct: String(reduce),
            drawdownHaltPct: String(reduce + extra),
          });
          const equity = start.plus(p.accountNet(marks));
          const hair = dec('1e-12');
          const peak =
            edge === 'free'
              ? freePeak
              : edge === 'equal'
                ? equity
                : edge.startsWith('reduce')
                  ? floorPeak(equity, limits.drawdownReducePct)
                  : floorPeak(equity, limits.drawdownHaltPct);
          const placed = edge.endsWith('+') ? peak.plus(hair) : edge.endsWith('-') ? peak.minus(hair) : peak;
          const meta = new Meta();
          meta.setMeta(EQUITY_PEAK_META, placed.toFixed());
          meta.setMeta(TRADING_STATE_META, state);
          const guard = new TradingGuard(meta, limits, start);
          const estimate: NetEstimate = { net: 0, scale: 0 };
          p.netEstimate((sym) => marks(sym)?.toNumber(), estimate);
          if (!guard.surelyUnchanged(estimate)) return;
          const before = new Map(meta.values);
          expect(guard.onNetPnl(p.accountNet(marks))).toBeUndefined();
          expect(meta.values).toEqual(before);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('decides a ticker far from both edges without the exact account', () => {
    const p = new Portfolio();
    p.applyFill(
      {
        tradeId: tradeId('1'),
        orderId: orderId('1'),
        symbol: SYMBOLS[0] as SymbolId,
        positionSide: 'LONG',
        orderSide: 'BUY',
        direction: 'OPEN_LONG',
        size: dec('0.1'),
        value: dec('4000'),
        fee: dec('0.32'),
        realizedPnl: dec(0),
        createdTime: 1,
      },
      strategyId('s'),
      'open_long',
    );
    const meta = new Meta();
    meta.setMeta(EQUITY_PEAK_META, '10100');
    const guard = new TradingGuard(
      meta,
      riskLimits({ drawdownReducePct: '5', drawdownHaltPct: '10' }),
      dec(10_000),
    );
    const estimate: NetEstimate = { net: 0, scale: 0 };
    // Mark 39,000: equity 9,899.68, 2 % under the peak: nothing to do, certainly.
    p.netEstimate(() => 39_000, estimate);
    expect(guard.surelyUnchanged(estimate)).toBe(true);
    // Mark 41,000: equity 10,099.68, 0.003 % under the peak: still certain.
    p.netEstimate(() => 41_000, estimate);
    expect(guard.surelyUnchanged(estimate)).toBe(true);
    // Mark 42,000: equity 10,199.68, a new peak (to be saved): not for the screen to decide.
    p.netEstimate(() => 42_000, estimate);
    expect(guard.surelyUnchanged(estimate)).toBe(false);
    // Mark 34,000: equity 9,399.68, 6.9 % down: the state tightens, not for the screen either.
    p.netEstimate(() => 34_000, estimate);
    expect(guard.surelyUnchanged(estimate)).toBe(false);
  });
});
