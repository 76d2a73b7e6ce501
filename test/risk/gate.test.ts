import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, type Dec } from '../../src/core/decimal.ts';
import { clientOid, strategyId, symbolId, type SymbolId } from '../../src/core/ids.ts';
import type { Intent, PlaceIntent } from '../../src/core/intents.ts';
import { newOrder } from '../../src/core/order-reducer.ts';
import { ORDER_SIDES, isOpening, type Order, type OrderSide } from '../../src/core/orders.ts';
import {
  DEFAULT_RISK_LIMITS,
  createOrderRate,
  evaluate,
  isReducing,
  openOrderExposure,
  recordPlacement,
  riskRefused,
  signOf,
  type HedgePosition,
  type RiskContext,
  type RiskLimits,
  type TradingState,
} from '../../src/risk/index.ts';

const BTC = symbolId('cmt_btcusdt');
const ETH = symbolId('cmt_ethusdt');
const LAST = dec('100');

/** Limits that never bind, so one limit at a time can be tested. */
const LOOSE: RiskLimits = {
  maxOrderNotional: dec('1e12'),
  maxPositionNotional: dec('1e12'),
  maxOpenOrders: 1_000_000,
  maxOrdersPerMinute: 1_000_000,
  priceBandBps: dec('10000'),
  drawdownReducePct: dec('5'),
  drawdownHaltPct: dec('10'),
};

function ctx(over: Partial<RiskContext> = {}): RiskContext {
  return {
    now: 1_000_000,
    limits: LOOSE,
    tradingState: 'ACTIVE',
    lastPrices: new Map([[BTC, LAST]]),
    positions: new Map<SymbolId, HedgePosition>(),
    openOrders: [],
    orderRate: createOrderRate(),
    ...over,
  };
}

function place(side: OrderSide, size: string | Dec, price?: string | Dec): PlaceIntent {
  return {
    kind: 'place',
    symbol: BTC,
    side,
    size: dec(size),
    orderType: 'normal',
    ...(price !== undefined ? { price: dec(price) } : {}),
  };
}

let seq = 0;
function liveOrder(
  side: OrderSide,
  size: string,
  price: string | undefined,
  status: Order['status'] = 'open',
  filled = '0',
): Order {
  return {
    ...newOrder({
      clientOid: clientOid(`cb-s-${++seq}`),
      strategy: strategyId('s'),
      symbol: BTC,
      side,
      orderType: 'normal',
      size: dec(size),
      ...(price !== undefined ? { price: dec(price) } : {}),
      at: 0,
    }),
    status,
    filledQty: dec(filled),
  };
}

const arbSide = fc.constantFrom(...ORDER_SIDES);
const arbThousandths = (max: number) => fc.integer({ min: 1, max }).map((n) => dec(n).div(1000));
const arbIntent: fc.Arbitrary<Intent> = fc.oneof(
  fc
    .tuple(arbSide, arbThousandths(5_000), fc.option(fc.integer({ min: 90, max: 110 }), { nil: undefined }))
    .map(([side, size, price]) => place(side, size, price !== undefined ? dec(price) : undefined)),
  fc.constant<Intent>({ kind: 'cancel', symbol: BTC, clientOid: clientOid('cb-s-1') }),
  fc.constant<Intent>({ kind: 'cancelAll' }),
  fc.constant<Intent>({ kind: 'cancelAll', symbol: BTC }),
);
const arbLimits: fc.Arbitrary<RiskLimits> = fc.record({
  maxOrderNotional: fc.integer({ min: 1, max: 1_000 }).map((n) => dec(n)),
  maxPositionNotional: fc.integer({ min: 1, max: 2_000 }).map((n) => dec(n)),
  maxOpenOrders: fc.integer({ min: 1, max: 5 }),
  maxOrdersPerMinute: fc.integer({ min: 1, max: 5 }),
  priceBandBps: fc.integer({ min: 1, max: 2_000 }).map((n) => dec(n)),
  drawdownReducePct: fc.constant(dec('5')),
  drawdownHaltPct: fc.constant(dec('10')),
});
const arbOpenOrders = fc
  .array(
    fc.tuple(
      arbSide,
      fc.integer({ min: 1, max: 10 }),
      fc.option(fc.integer({ min: 90, max: 110 }), { nil: undefined }),
      fc.constantFrom<Order['status']>(
        'created',
        'submitted',
        'unknown',
        'open',
        'canceling',
        'filled',
        'canceled',
      ),
    ),
    { maxLength: 6 },
  )
  .map((rows) =>
    rows.map(([side, size, price, status]) =>
      liveOrder(side, String(size), price !== undefined ? String(price) : undefined, status),
    ),
  );

describe('risk gate: properties', () => {
  it('HALTED passes only cancels', () => {
    fc.assert(
      fc.property(arbIntent, arbLimits, arbOpenOrders, (intent, limits, openOrders) => {
        const d = evaluate(intent, ctx({ tradingState: 'HALTED', limits, openOrders }));
        expect(d.approved).toBe(intent.kind !== 'place');
        if (!d.approved) expect(d.reason).toBe('halted');
      }),
      { numRuns: 300 },
    );
  });

  it('REDUCING passes nothing that increases a position', () => {
    fc.assert(
      fc.property(arbIntent, arbLimits, arbOpenOrders, (intent, limits, openOrders) => {
        const d = evaluate(intent, ctx({ tradingState: 'REDUCING', limits, openOrders }));
        if (d.approved) expect(isReducing(intent)).toBe(true);
        if (intent.kind === 'place' && isOpening(intent.side))
          expect(d).toMatchObject({ approved: false, reason: 'reducing_only' });
      }),
      { numRuns: 300 },
    );
  });

  it('cancels pass in every state, whatever the limits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<TradingState>('ACTIVE', 'REDUCING', 'HALTED'),
        arbLimits,
        (tradingState, limits) => {
          const c = ctx({
            tradingState,
            limits,
            lastPrices: new Map(),
            openOrders: Array.from({ length: 10 }, () => liveOrder('open_long', '1', '100')),
          });
          expect(evaluate({ kind: 'cancelAll' }, c).approved).toBe(true);
          expect(evaluate({ kind: 'cancel', symbol: BTC, clientOid: clientOid('cb-s-1') }, c).approved).toBe(
            true,
          );
        },
      ),
    );
  });

  it('order notional is exact: approved iff size × price ≤ max', () => {
    fc.assert(
      fc.property(
        arbSide,
        arbThousandths(20_000),
        fc.integer({ min: 95, max: 105 }),
        fc.integer({ min: 1, max: 2_000 }),
        (side, size, price, max) => {
          const d = evaluate(
            place(side, size, dec(price)),
            ctx({ limits: { ...LOOSE, maxOrderNotional: dec(max) } }),
          );
          expect(d.approved).toBe(size.times(price).lte(max));
          if (!d.approved) expect(d.reason).toBe('order_notional');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('position notional is exact: position legs at last + working opening orders + this order ≤ max', () => {
    fc.assert(
      fc.property(
        arbSide,
        arbThousandths(10_000),
        fc.option(fc.integer({ min: 95, max: 105 }), { nil: undefined }),
        arbOpenOrders,
        fc.tuple(arbThousandths(5_000), arbThousandths(5_000)),
        fc.integer({ min: 1, max: 3_000 }),
        (side, size, price, openOrders, [long, short], max) => {
          const c = ctx({
            limits: { ...LOOSE, maxPositionNotional: dec(max) },
            openOrders,
            positions: new Map([[BTC, { long, short }]]),
          });
          const d = evaluate(place(side, size, price !== undefined ? dec(price) : undefined), c);
          let expected = long.plus(short).times(LAST);
          for (const o of openOrders) {
            if (['filled', 'canceled', 'rejected'].includes(o.status) || !isOpening(o.side)) continue;
            expected = expected.plus(o.size.minus(o.filledQty).times(o.price ?? LAST));
          }
          expected = expected.plus(size.times(price ?? LAST));
          const fits = !isOpening(side) || expected.lte(max);
          expect(d.approved).toBe(fits);
          if (!d.approved) expect(d.reason).toBe('position_notional');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('price band is exact: approved iff |price − last| ≤ last × bps / 10 000', () => {
    fc.assert(
      fc.property(
        arbSide,
        fc.integer({ min: 1, max: 20_000 }),
        fc.integer({ min: 1, max: 1_000 }),
        (side, priceCents, bps) => {
          const price = dec(priceCents).div(100);
          const d = evaluate(
            place(side, '0.001', price),
            ctx({ limits: { ...LOOSE, priceBandBps: dec(bps) } }),
          );
          expect(d.approved).toBe(price.minus(LAST).abs().times(10_000).lte(LAST.times(bps)));
          if (!d.approved) expect(d.reason).toBe('price_band');
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Live and finished orders on two symbols, limit and market, some partly (or over-) filled. */
const arbMixedOrders = fc.array(
  fc
    .record({
      symbol: fc.constantFrom(BTC, ETH),
      side: arbSide,
      size: arbThousandths(10_000),
      filledPart: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_200 })),
      price: fc.option(
        fc.integer({ min: 1, max: 20_000 }).map((n) => dec(n).div(100)),
        { nil: undefined },
      ),
      status: fc.constantFrom<Order['status']>(
        'created',
        'submitted',
        'unknown',
        'pending',
        'open',
        'canceling',
        'filled',
        'canceled',
        'rejected',
      ),
    })
    .map(({ symbol, side, size, filledPart, price, status }): Order => ({
      ...liveOrder(side, '1', undefined, status),
      symbol,
      size,
      filledQty: size.times(filledPart).div(1_000),
      ...(price !== undefined ? { price } : {}),
    })),
  { maxLength: 12 },
);

describe('risk gate: live orders summed ahead of time (openOrderExposure)', () => {
  it('gives exactly the decisions (and refusal details) of the list of orders', () => {
    fc.assert(
      fc.property(
        arbIntent,
        arbLimits.map((l) => ({ ...l, maxOpenOrders: l.maxOpenOrders + 4 })),
        arbMixedOrders,
        fc.option(fc.tuple(arbThousandths(5_000), arbThousandths(5_000)), { nil: undefined }),
        (intent, limits, orders, legs) => {
          const positions = new Map<SymbolId, HedgePosition>(
            legs !== undefined ? [[BTC, { long: legs[0], short: legs[1] }]] : [],
          );
          const byList = evaluate(intent, ctx({ limits, positions, openOrders: orders }));
          const bySums = evaluate(intent, ctx({ limits, positions, openOrders: openOrderExposure(orders) }));
          expect(bySums).toEqual(byList);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('signOf agrees with cmp(0), zero and negative zero included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.integer({ min: 0, max: 12 }),
        (n, scale) => {
          const d = dec(n).div(dec(10).pow(scale));
          expect(signOf(d)).toBe(d.cmp(0));
        },
      ),
    );
    expect(signOf(dec('-0'))).toBe(0);
    expect(signOf(dec('0.000000000000000001'))).toBe(1);
  });
});

describe('risk gate: readable cases', () => {
  it('approves a plain order within the default limits', () => {
    expect(evaluate(place('open_long', '1', '100'), ctx({ limits: DEFAULT_RISK_LIMITS }))).toEqual({
      approved: true,
    });
  });

  it('lets a close order through while REDUCING', () => {
    expect(evaluate(place('close_long', '1', '100'), ctx({ tradingState: 'REDUCING' })).approved).toBe(true);
  });

  it('refuses a market order without a last price, and a non-positive size', () => {
    expect(evaluate(place('open_long', '1'), ctx({ lastPrices: new Map() }))).toMatchObject({
      approved: false,
      reason: 'no_price',
    });
    expect(evaluate(place('open_long', '0', '100'), ctx())).toMatchObject({
      approved: false,
      reason: 'invalid_intent',
    });
  });

  it('values a market order at the last price', () => {
    const limits = { ...LOOSE, maxOrderNotional: dec('100') };
    expect(evaluate(place('open_long', '1'), ctx({ limits })).approved).toBe(true);
    expect(evaluate(place('open_long', '1.01'), ctx({ limits }))).toMatchObject({
      approved: false,
      reason: 'order_notional',
      detail: 'order notional 101 exceeds 100',
    });
  });

  it('counts only live orders against maxOpenOrders, this one included', () => {
    const limits = { ...LOOSE, maxOpenOrders: 2 };
    const done = liveOrder('open_long', '1', '100', 'filled', '1');
    const one = liveOrder('open_long', '1', '100');
    expect(evaluate(place('open_long', '1', '100'), ctx({ limits, openOrders: [done, one] })).approved).toBe(
      true,
    );
    expect(
      evaluate(
        place('open_long', '1', '100'),
        ctx({ limits, openOrders: [one, liveOrder('close_long', '1', '100', 'unknown')] }),
      ),
    ).toMatchObject({
      approved: false,
      reason: 'open_orders',
    });
  });

  it('limits placements per rolling minute', () => {
    const limits = { ...LOOSE, maxOrdersPerMinute: 2 };
    let orderRate = createOrderRate();
    orderRate = recordPlacement(orderRate, 0);
    orderRate = recordPlacement(orderRate, 30_000);
    expect(evaluate(place('open_long', '1', '100'), ctx({ limits, orderRate, now: 59_999 }))).toMatchObject({
      approved: false,
      reason: 'order_rate',
    });
    expect(evaluate(place('open_long', '1', '100'), ctx({ limits, orderRate, now: 60_000 })).approved).toBe(
      true,
    );
  });

  it('turns a refusal into an event carrying its reason', () => {
    const intent = place('open_long', '1', '100');
    const d = evaluate(intent, ctx({ tradingState: 'HALTED' }));
    if (d.approved) throw new Error('expected a refusal');
    expect(riskRefused(strategyId('s'), intent, d, 42)).toEqual({
      kind: 'RiskRefused',
      at: 42,
      strategy: 's',
      intent,
      reason: 'halted',
      detail: d.detail,
    });
  });

  it('does not count a partly filled opening order at its full size', () => {
    const limits = { ...LOOSE, maxPositionNotional: dec('200') };
    const partly = liveOrder('open_long', '2', '100', 'open', '1.5'); // 0.5 left → 50
    expect(evaluate(place('open_short', '1.5', '100'), ctx({ limits, openOrders: [partly] })).approved).toBe(
      true,
    );
    expect(evaluate(place('open_short', '1.51', '100'), ctx({ limits, openOrders: [partly] })).approved).toBe(
      false,
    );
  });
});
