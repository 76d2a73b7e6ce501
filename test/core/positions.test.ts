import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO, type Dec } from '../../src/core/decimal.ts';
import { orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { OrderSide } from '../../src/core/orders.ts';
import {
  applyFill,
  averageEntry,
  equity,
  fillEffect,
  netQty,
  positionKey,
  positionsFromFills,
  positionsOf,
  summarize,
  type PositionBook,
  type PositionFill,
} from '../../src/core/positions.ts';
import type { FillReport } from '../../src/core/reports.ts';

const BTC = symbolId('cmt_btcusdt');
const ETH = symbolId('cmt_ethusdt');
const A = strategyId('a');
const B = strategyId('b');
let seq = 0;

function fill(side: OrderSide, size: string, price: string, over: Partial<FillReport> = {}): FillReport {
  const s = dec(size);
  return {
    tradeId: tradeId(String(++seq)),
    orderId: orderId('1'),
    symbol: BTC,
    positionSide: side.endsWith('long') ? 'LONG' : 'SHORT',
    orderSide: side === 'open_long' || side === 'close_short' ? 'BUY' : 'SELL',
    direction: side.toUpperCase(),
    size: s,
    value: s.times(dec(price)),
    fee: ZERO,
    realizedPnl: ZERO,
    createdTime: seq,
    ...over,
  };
}
const pf = (f: FillReport, strategy?: typeof A, orderSide?: OrderSide): PositionFill => ({
  fill: f,
  ...(strategy !== undefined ? { strategy } : {}),
  ...(orderSide !== undefined ? { orderSide } : {}),
});

describe('positions from fills', () => {
  it('averages entries and realises a long round trip exactly', () => {
    const { book } = positionsFromFills([
      pf(fill('open_long', '1', '100'), A),
      pf(fill('open_long', '3', '200'), A),
      pf(fill('close_long', '2', '300'), A),
    ]);
    const p = book.get(positionKey(A, BTC, 'long'))!;
    expect(p.qty.toFixed()).toBe('2');
    expect(averageEntry(p)!.toFixed()).toBe('175');
    expect(p.realizedPnl.toFixed()).toBe('250'); // 2 × (300 − 175)
    expect(summarize(book, () => dec('150')).unrealizedPnl.toFixed()).toBe('-50');
  });

  it('mirrors PnL for a short', () => {
    const { book } = positionsFromFills([
      pf(fill('open_short', '2', '100'), A),
      pf(fill('close_short', '2', '90'), A),
    ]);
    const p = book.get(positionKey(A, BTC, 'short'))!;
    expect(p.qty.eq(0)).toBe(true);
    expect(p.cost.eq(0)).toBe(true);
    expect(p.realizedPnl.toFixed()).toBe('20');
  });

  it("prefers the exchange's non-zero realizePnl and computes it otherwise", () => {
    const open = pf(fill('open_long', '1', '100'), A);
    const byExchange = positionsFromFills([
      open,
      pf(fill('close_long', '1', '110', { realizedPnl: dec('9.5') }), A),
    ]);
    expect(byExchange.book.get(positionKey(A, BTC, 'long'))!.realizedPnl.toFixed()).toBe('9.5');
    const computed = positionsFromFills([open, pf(fill('close_long', '1', '110'), A)]);
    expect(computed.book.get(positionKey(A, BTC, 'long'))!.realizedPnl.toFixed()).toBe('10');
  });

  it('keeps fees apart from realised PnL and nets them in the summary', () => {
    const { book } = positionsFromFills([
      pf(fill('open_long', '1', '100', { fee: dec('0.08') }), A),
      pf(fill('close_long', '1', '101', { fee: dec('0.0808') }), A),
    ]);
    const s = summarize(book, () => undefined);
    expect(s.realizedPnl.toFixed()).toBe('1');
    expect(s.fees.toFixed()).toBe('0.1608');
    expect(s.netPnl.toFixed()).toBe('0.8392');
    expect(s.volume.toFixed()).toBe('201');
    expect(equity(dec('1000'), book, () => undefined).toFixed()).toBe('1000.8392');
  });

  it('keeps strategies, symbols and legs apart', () => {
    const { book } = positionsFromFills([
      pf(fill('open_long', '1', '100'), A),
      pf(fill('open_long', '2', '100'), B),
      pf(fill('open_short', '5', '100'), A),
      pf(fill('open_long', '7', '10', { symbol: ETH }), A),
      pf(fill('open_long', '4', '100')),
    ]);
    expect(positionsOf(book, { strategy: A })).toHaveLength(3);
    expect(netQty(book, BTC, A).toFixed()).toBe('-4');
    expect(netQty(book, BTC).toFixed()).toBe('2');
    expect(book.get(positionKey(undefined, BTC, 'long'))!.qty.toFixed()).toBe('4');
  });

  it("uses the order's side over the fill's own fields, then direction, then positionSide+orderSide", () => {
    const f = fill('open_long', '1', '1', { direction: 'TAKER' });
    expect(fillEffect(f, 'close_short')).toEqual({ leg: 'short', opening: false });
    expect(fillEffect(f)).toEqual({ leg: 'long', opening: true });
    expect(fillEffect(fill('close_short', '1', '1'))).toEqual({ leg: 'short', opening: false });
    expect(fillEffect({ ...f, positionSide: 'SHORT', orderSide: 'BUY' })).toEqual({
      leg: 'short',
      opening: false,
    });
    expect(fillEffect({ ...f, positionSide: 'BOTH', orderSide: 'BUY' })).toBeUndefined();
  });

  it('skips and reports a fill it cannot classify instead of guessing', () => {
    const r = positionsFromFills([pf(fill('open_long', '1', '1', { direction: 'MAKER', positionSide: '' }))]);
    expect(r.book.size).toBe(0);
    expect(r.skipped[0]).toMatch(/cannot tell/);
  });

  it('counts a close larger than the leg as unmatched instead of going negative', () => {
    const { book } = positionsFromFills([
      pf(fill('open_long', '1', '100'), A),
      pf(fill('close_long', '3', '110'), A),
    ]);
    const p = book.get(positionKey(A, BTC, 'long'))!;
    expect(p.qty.toFixed()).toBe('0');
    expect(p.unmatchedCloseQty.toFixed()).toBe('2');
    expect(p.realizedPnl.toFixed()).toBe('10');
  });

  it('does not mutate the book it is given', () => {
    const first = applyFill(new Map(), pf(fill('open_long', '1', '1'), A)).book;
    const before = first.get(positionKey(A, BTC, 'long'));
    applyFill(first, pf(fill('open_long', '1', '1'), A));
    expect(first.get(positionKey(A, BTC, 'long'))).toBe(before);
  });
});

// --- properties -------------------------------------------------------------------------------------

const price = fc.integer({ min: 1, max: 10_000_000 }).map((n) => dec(n).div(100));
const size = fc.integer({ min: 1, max: 5_000 }).map((n) => dec(n).div(1000));
/** Steps: open with (size, price), or close a fraction (0..100 %) of what is held at a price. */
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ open: fc.constant(true as const), size, price }),
  fc.record({ open: fc.constant(false as const), pct: fc.integer({ min: 0, max: 100 }), price }),
);

type Step = { open: true; size: Dec; price: Dec } | { open: false; pct: number; price: Dec };

function run(leg: 'long' | 'short', steps: readonly Step[]) {
  let book: PositionBook = new Map();
  let held = ZERO;
  let opened = ZERO;
  let closed = ZERO;
  let openValue = ZERO;
  let closeValue = ZERO;
  for (const s of steps) {
    let q: Dec;
    if (s.open) q = s.size;
    else {
      q = held.times(s.pct).div(100).round(3, 0);
      if (q.eq(0)) continue;
    }
    const side: OrderSide = s.open
      ? leg === 'long'
        ? 'open_long'
        : 'open_short'
      : leg === 'long'
        ? 'close_long'
        : 'close_short';
    const f = fill(side, q.toFixed(), s.price.toFixed());
    book = applyFill(book, pf(f, A, side)).book;
    if (s.open) {
      held = held.plus(q);
      opened = opened.plus(q);
      openValue = openValue.plus(f.value);
    } else {
      held = held.minus(q);
      closed = closed.plus(q);
      closeValue = closeValue.plus(f.value);
    }
  }
  return { book, opened, closed, openValue, closeValue, pos: book.get(positionKey(A, BTC, leg)) };
}

describe('position properties', () => {
  it('conserves quantity: held = opened − closed, never negative', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('long' as const, 'short' as const),
        fc.array(step, { maxLength: 40 }),
        (leg, steps) => {
          const r = run(leg, steps);
          if (r.pos === undefined) return;
          expect(r.pos.qty.eq(r.opened.minus(r.closed))).toBe(true);
          expect(r.pos.qty.gte(0)).toBe(true);
          expect(r.pos.cost.gte(0)).toBe(true);
          expect(r.pos.unmatchedCloseQty.eq(0)).toBe(true);
          if (r.pos.qty.eq(0)) expect(r.pos.cost.eq(0)).toBe(true);
        },
      ),
    );
  });

  it('total PnL does not depend on cost allocation: realised + unrealised = Σ exit value + held × mark − Σ entry value', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), price, (steps, mark) => {
        const long = run('long', steps);
        const short = run('short', steps);
        if (long.pos === undefined || short.pos === undefined) return;
        const held = long.pos.qty;
        const expectedLong = long.closeValue.plus(held.times(mark)).minus(long.openValue);
        const sl = summarize(long.book, () => mark);
        const ss = summarize(short.book, () => mark);
        expect(sl.realizedPnl.plus(sl.unrealizedPnl).eq(expectedLong)).toBe(true);
        // The same trades on the short leg give exactly the opposite PnL.
        expect(ss.realizedPnl.plus(ss.unrealizedPnl).eq(expectedLong.neg())).toBe(true);
      }),
    );
  });

  it('a long that only sells above every buy price never realises a loss (and a short mirrors it)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ size, buy: fc.integer({ min: 1, max: 1000 }), up: fc.integer({ min: 0, max: 1000 }) }),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        (trades) => {
          const maxBuy = Math.max(...trades.map((t) => t.buy));
          const steps: Step[] = [
            ...trades.map((t): Step => ({ open: true, size: t.size, price: dec(t.buy) })),
            ...trades.map((t): Step => ({ open: false, pct: 50, price: dec(maxBuy + t.up) })),
          ];
          expect(run('long', steps).pos!.realizedPnl.gte(0)).toBe(true);
          expect(run('short', steps).pos!.realizedPnl.lte(0)).toBe(true);
        },
      ),
    );
  });
});
