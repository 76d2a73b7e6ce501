// The engine's Portfolio keeps one position book and a snapshot per strategy and symbol
// (src/engine/portfolio.ts). Property: for any fills of any strategies on any symbols and legs,
// interleaved with reads, every snapshot equals what the pure fold of every fill so far gives
// (quantities and average entries), and it is the same object until a fill moves one of its legs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { orderId, strategyId, symbolId, tradeId, type StrategyId } from '../../src/core/ids.ts';
import { ORDER_SIDES, type OrderSide } from '../../src/core/orders.ts';
import {
  averageEntry,
  positionKey,
  positionsFromFills,
  type PositionFill,
} from '../../src/core/positions.ts';
import type { FillReport } from '../../src/core/reports.ts';
import { Portfolio } from '../../src/engine/portfolio.ts';
import type { PositionSnapshot } from '../../src/strategy/types.ts';

const SYMBOLS = [symbolId('cmt_btcusdt'), symbolId('cmt_ethusdt')];
const STRATEGIES = [strategyId('a'), strategyId('b')];

const step = fc.oneof(
  fc.record({
    kind: fc.constant('fill' as const),
    symbol: fc.constantFrom(...SYMBOLS),
    strategy: fc.constantFrom<StrategyId | undefined>(...STRATEGIES, undefined),
    side: fc.constantFrom<OrderSide>(...ORDER_SIDES),
    size: fc.integer({ min: 0, max: 3000 }).map((n) => dec(n).div(1000)),
    price: fc.integer({ min: 1, max: 1_000_000 }).map((n) => dec(n).div(10)),
    // An unclassifiable fill (no order side, unreadable direction) is skipped and moves nothing.
    readable: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('read' as const),
    symbol: fc.constantFrom(...SYMBOLS),
    strategy: fc.constantFrom(...STRATEGIES),
  }),
);

describe('Portfolio positions', () => {
  it('match the fold of every fill so far, one snapshot object until a fill moves its legs', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const p = new Portfolio();
        const folded: PositionFill[] = [];
        /** The snapshot last read per strategy and symbol, and whether a fill moved it since. */
        const last = new Map<string, { snap: PositionSnapshot; moved: boolean }>();
        steps.forEach((s, i) => {
          const key = `${s.strategy ?? ''}|${s.symbol}`;
          if (s.kind === 'fill') {
            const fill: FillReport = {
              tradeId: tradeId(String(i)),
              orderId: orderId(String(i)),
              symbol: s.symbol,
              positionSide: 'LONG',
              orderSide: 'BUY',
              direction: s.readable ? s.side.toUpperCase() : 'SIDEWAYS',
              size: s.size,
              value: s.size.times(s.price),
              fee: dec(0),
              realizedPnl: dec(0),
              createdTime: i,
            };
            const side = s.readable ? s.side : undefined;
            const skipped = p.applyFill(fill, s.strategy, side);
            const pf: PositionFill = {
              fill,
              ...(s.strategy !== undefined ? { strategy: s.strategy } : {}),
              ...(side !== undefined ? { orderSide: side } : {}),
            };
            folded.push(pf);
            const seen = last.get(key);
            if (skipped === undefined && seen !== undefined) seen.moved = true;
            return;
          }
          const snap = p.position(s.strategy, s.symbol);
          const book = positionsFromFills(folded).book;
          const leg = (l: 'long' | 'short') => book.get(positionKey(s.strategy, s.symbol, l));
          const long = leg('long');
          const short = leg('short');
          expect(snap.long.toFixed()).toBe((long?.qty ?? dec(0)).toFixed());
          expect(snap.short.toFixed()).toBe((short?.qty ?? dec(0)).toFixed());
          expect(snap.longEntryPrice?.toFixed()).toBe(
            long !== undefined ? averageEntry(long)?.toFixed() : undefined,
          );
          expect(snap.shortEntryPrice?.toFixed()).toBe(
            short !== undefined ? averageEntry(short)?.toFixed() : undefined,
          );
          expect(Object.isFrozen(snap)).toBe(true);
          const seen = last.get(key);
          if (seen !== undefined && !seen.moved) expect(snap).toBe(seen.snap);
          if (seen !== undefined && seen.moved) expect(snap).not.toBe(seen.snap);
          last.set(key, { snap, moved: false });
          // The account-wide legs kept fill by fill: the sums of the book's legs per symbol.
          const summed = new Map<string, { long: string; short: string }>();
          for (const pos of book.values()) {
            const h = summed.get(pos.symbol) ?? { long: '0', short: '0' };
            h[pos.leg] = dec(h[pos.leg]).plus(pos.qty).toFixed();
            summed.set(pos.symbol, h);
          }
          const kept = new Map(
            [...p.hedgePositions()].map(([sym, h]) => [
              sym,
              { long: h.long.toFixed(), short: h.short.toFixed() },
            ]),
          );
          expect(kept).toEqual(summed);
        });
      }),
      { numRuns: 300 },
    );
  });
});
