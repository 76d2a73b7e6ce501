// The engine's account PnL is kept fill by fill (src/engine/account-totals.ts): every figure must
// equal `summarize` over the whole position book to the last digit, for any fills of any strategies
// on any symbols and legs — including partial closes whose divided cost shares carry 18 places, venue
// realised PnL, fees, unmarked symbols and unclassifiable fills.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, type Dec } from '../../src/core/decimal.ts';
import { orderId, strategyId, symbolId, tradeId, type SymbolId } from '../../src/core/ids.ts';
import { ORDER_SIDES, type OrderSide } from '../../src/core/orders.ts';
import { summarize } from '../../src/core/positions.ts';
import type { FillReport } from '../../src/core/reports.ts';
import type { NetEstimate } from '../../src/engine/account-totals.ts';
import { Portfolio } from '../../src/engine/portfolio.ts';

const SYMBOLS = [symbolId('cmt_btcusdt'), symbolId('cmt_ethusdt'), symbolId('cmt_solusdt')];
const STRATEGIES = [strategyId('a'), strategyId('b'), strategyId('c'), undefined];

const decimal = (max: number, places: number): fc.Arbitrary<Dec> =>
  fc.integer({ min: 0, max: max * 10 ** places }).map((n) => dec(n).div(10 ** places));

const fillArb = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  strategy: fc.constantFrom(...STRATEGIES),
  side: fc.constantFrom<OrderSide | undefined>(...ORDER_SIDES, undefined),
  size: decimal(3, 3),
  price: decimal(100_000, 1),
  fee: decimal(5, 6),
  // The venue's realised PnL of a close: often a divided share (18 places), sometimes absent (0).
  venuePnl: fc.oneof(
    fc.constant(dec(0)),
    decimal(50, 8).map((d) => d.div(7).neg()),
  ),
  // Direction text the position rules cannot read (the fill is skipped) when no side is known.
  readable: fc.boolean(),
});

const marksArb = fc.record(
  Object.fromEntries(SYMBOLS.map((s) => [s, fc.option(decimal(100_000, 2), { nil: undefined })])),
) as fc.Arbitrary<Record<SymbolId, Dec | undefined>>;

describe('the account PnL kept fill by fill', () => {
  it('equals summarize over the whole book, figure by figure, after every fill', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 60 }), marksArb, (fills, markTable) => {
        const marks = (s: SymbolId): Dec | undefined => markTable[s];
        const p = new Portfolio();
        fills.forEach((f, i) => {
          const side = f.side ?? 'open_long';
          const fill: FillReport = {
            tradeId: tradeId(String(i + 1)),
            orderId: orderId(String(i + 1)),
            symbol: f.symbol,
            positionSide: side.endsWith('long') ? 'LONG' : 'SHORT',
            orderSide: side === 'open_long' || side === 'close_short' ? 'BUY' : 'SELL',
            direction: f.side === undefined && !f.readable ? 'SIDEWAYS' : side.toUpperCase(),
            size: f.size,
            value: f.size.times(f.price),
            fee: f.fee,
            realizedPnl: side.startsWith('close') ? f.venuePnl : dec(0),
            createdTime: i,
          };
          p.applyFill(fill, f.strategy, f.side);
          const want = summarize(p.book, marks);
          const got = p.pnl(undefined, marks);
          expect(got.realized.eq(want.realizedPnl)).toBe(true);
          expect(got.fees.eq(want.fees)).toBe(true);
          expect(got.unrealized.eq(want.unrealizedPnl)).toBe(true);
          expect(got.net.eq(want.netPnl)).toBe(true);
          // The same representation, not only the same value (reports print them).
          expect(got.net.toFixed()).toBe(want.netPnl.toFixed());
          expect(p.accountNet(marks).toFixed()).toBe(want.netPnl.toFixed());
          // With no leg open the net is the closed net, the same object until the next fill.
          const open = [...p.book.values()].some((x) => !x.qty.eq(0));
          if (!open) expect(p.accountNet(marks)).toBe(p.accountNet(marks));
          // The double estimate (for the screens of core/float-screen.ts): within a few roundings.
          const estimate: NetEstimate = { net: 0, scale: 0 };
          p.netEstimate((s) => marks(s)?.toNumber(), estimate);
          expect(Math.abs(estimate.net - want.netPnl.toNumber())).toBeLessThanOrEqual(
            2 ** -46 * estimate.scale,
          );
          expect(estimate.scale).toBeGreaterThanOrEqual(Math.abs(want.netPnl.toNumber()));
        });
      }),
      { numRuns: 300 },
    );
  });
});
