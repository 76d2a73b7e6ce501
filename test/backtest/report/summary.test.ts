import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO, type Dec } from '../../../src/core/decimal.ts';
import { InvariantViolation } from '../../../src/core/errors.ts';
import { maxDrawdown, sharpeRatio, summarize } from '../../../src/backtest/report/summary.ts';
import type { RunRecord } from '../../../src/backtest/report/types.ts';
import { orderId } from '../../../src/core/ids.ts';
import type { Order } from '../../../src/core/orders.ts';
import { equity, fill, HOUR, MIN, order, roundTrip, T0 } from './fixtures.ts';

describe('summarize: a long round trip with known fees', () => {
  const s = summarize(roundTrip());

  it('gives exact money figures', () => {
    expect(s.fills).toBe(2);
    expect(s.volume).toBe('420'); // 200 + 220
    expect(s.feesPaid).toBe('0.336'); // 0.16 + 0.176
    expect(s.realizedPnl).toBe('20'); // (110 − 100) × 2
    expect(s.unrealizedPnl).toBe('0');
    expect(s.netPnl).toBe('19.664'); // 20 − 0.336
  });

  it('counts orders by final status', () => {
    expect(s.ordersPlaced).toBe(4);
    expect(s.ordersCanceled).toBe(1);
    expect(s.ordersRejected).toBe(1);
    expect(s.planOrders).toEqual({ placed: 0, triggered: 0, canceled: 0, rejected: 0 });
  });

  it('counts plan orders: placed, triggered (child seen or filled), canceled and rejected before triggering', () => {
    const base = roundTrip();
    const plan = (o: Order, over: Partial<Order> = {}): Order => ({ ...o, triggerPrice: dec('95'), ...over });
    const record: RunRecord = {
      ...base,
      orders: [
        ...base.orders,
        plan(order(5, 'close_long', 'filled', { size: '2', filled: '2' }), { planOrderId: orderId('9005') }),
        plan(order(6, 'close_long', 'canceled', { size: '2' })),
        plan(order(7, 'close_long', 'canceled', { size: '2', filled: '1' })), // triggered, then canceled
        plan(order(8, 'close_long', 'rejected', { size: '2', reason: '40015' })),
        plan(order(9, 'close_long', 'untriggered', { size: '2' })),
      ],
    };
    const counts = summarize(record);
    expect(counts.planOrders).toEqual({ placed: 5, triggered: 2, canceled: 1, rejected: 1 });
    expect(counts.ordersPlaced).toBe(9);
  });

  it('derives drawdown, win rate and exposure', () => {
    // 1000 → 999.84 after the opening fee: the only fall.
    expect(s.maxDrawdown).toBe('0.16');
    expect(s.maxDrawdownFraction).toBe(0.00016);
    expect(s.winRate).toBe(1);
    // Long from +1 min to +3 min of a 4-minute run.
    expect(s.exposure).toBe(0.5);
    expect(s.intervalSharpe).toBeNull(); // four minutes hold no full hourly return
    expect(s.sharpe).toBeNull(); // nor seven daily returns
  });

  it('passes the request figures through with a stable key order', () => {
    expect(Object.keys(s.requestsByEndpoint)).toEqual(['cancelOrder', 'fills', 'placeOrder', 'tickers']);
    expect(s.weightUsed).toEqual({ ip: 230, uid: 38 });
    expect(s.rejectionsByReason).toEqual({ '40015': 1 });
    expect(s.responses429).toBe(0);
  });

  it('has the documented keys in the documented order', () => {
    expect(Object.keys(s)).toEqual([
      'ordersPlaced',
      'ordersCanceled',
      'ordersRejected',
      'planOrders',
      'fills',
      'volume',
      'feesPaid',
      'realizedPnl',
      'unrealizedPnl',
      'netPnl',
      'maxDrawdown',
      'maxDrawdownFraction',
      'winRate',
      'intervalSharpe',
      'intervalSharpeAnnualized',
      'sharpeIntervalMs',
      'exposure',
      'startingBalance',
      'finalEquity',
      'totalReturn',
      'cagr',
      'buyAndHoldReturn',
      'dailyReturns',
      'sharpe',
      'sortino',
      'calmar',
      'trades',
      'openTrades',
      'tradeWinRate',
      'profitFactor',
      'expectancy',
      'avgTradeDurationMs',
      'bestTrade',
      'worstTrade',
      'maxDrawdownStart',
      'maxDrawdownEnd',
      'maxDrawdownDurationMs',
      'requestsByEndpoint',
      'weightUsed',
      'rejectionsByReason',
      'responses429',
      'strategiesDisabled',
      'byStrategy',
      'bySymbol',
    ]);
  });
});

describe('summarize: open position at the end', () => {
  it('takes unrealized PnL from the last equity sample and counts exposure to the end', () => {
    const base = roundTrip();
    const rec: RunRecord = {
      ...base,
      orders: [order(1, 'open_long', 'filled', { size: '2', filled: '2' })],
      fills: [fill(1, 1, T0 + MIN, { size: '2', value: '200', fee: '0.16' })],
      equity: [equity(T0, '1000'), equity(T0 + 4 * MIN, '1019.84', '0', '20')],
    };
    const s = summarize(rec);
    expect(s.realizedPnl).toBe('0');
    expect(s.unrealizedPnl).toBe('20');
    expect(s.netPnl).toBe('19.84'); // 0 − 0.16 + 20
    expect(s.exposure).toBe(0.75); // from +1 min to the end at +4 min
    expect(s.winRate).toBeNull();
  });
});

describe('maxDrawdown', () => {
  const ds = (xs: string[]): Dec[] => xs.map((x) => dec(x));

  it('finds the deepest fall below the running peak', () => {
    const d = maxDrawdown(ds(['100', '120', '90', '130', '91', '140']));
    expect(d.amount.toFixed()).toBe('39'); // 130 → 91
    expect(d.fraction?.toFixed()).toBe('0.3'); // 39 / 130
  });

  it('reports the largest amount and the largest fraction even when they come from different falls', () => {
    const d = maxDrawdown(ds(['100', '50', '1000', '800', '900']));
    expect(d.amount.toFixed()).toBe('200'); // 1000 → 800
    expect(d.fraction?.toFixed()).toBe('0.5'); // 100 → 50
  });

  it('is zero for a rising or empty curve', () => {
    expect(maxDrawdown(ds(['1', '2', '3'])).amount.toFixed()).toBe('0');
    expect(maxDrawdown([]).fraction?.toFixed()).toBe('0');
  });

  it('has no fraction for a fall from a non-positive peak', () => {
    expect(maxDrawdown(ds(['-5', '-10'])).fraction).toBeNull();
  });

  it('agrees with the brute-force definition', () => {
    const curve = fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(curve, (xs) => {
        const e = xs.map((x) => dec(x).div(100));
        let amount = ZERO;
        let fraction = ZERO;
        for (let j = 0; j < e.length; j++) {
          let peak = e[0]!;
          for (let i = 0; i <= j; i++) if (e[i]!.gt(peak)) peak = e[i]!;
          const fall = peak.minus(e[j]!);
          if (fall.gt(amount)) amount = fall;
          if (fall.div(peak).gt(fraction)) fraction = fall.div(peak);
        }
        const d = maxDrawdown(e);
        expect(d.amount.eq(amount)).toBe(true);
        expect(d.fraction?.eq(fraction)).toBe(true);
      }),
    );
  });
});

describe('winRate', () => {
  it('counts closing fills with non-zero realized PnL, wins being those above zero', () => {
    const base = roundTrip();
    const rec: RunRecord = {
      ...base,
      orders: [
        order(1, 'open_long', 'filled'),
        order(2, 'close_long', 'filled'),
        order(3, 'open_short', 'filled'),
        order(4, 'close_short', 'filled'),
      ],
      fills: [
        fill(1, 1, T0 + 1, { size: '3', value: '300', fee: '0' }),
        fill(2, 2, T0 + 2, { size: '1', value: '105', fee: '0', pnl: '5' }),
        fill(3, 2, T0 + 3, { size: '1', value: '98', fee: '0', pnl: '-2' }),
        fill(4, 2, T0 + 4, { size: '1', value: '100', fee: '0', pnl: '0' }), // flat: not counted
        fill(5, 3, T0 + 5, { size: '1', value: '100', fee: '0', pnl: '7' }), // opening: not counted
        fill(6, 4, T0 + 6, { size: '1', value: '99', fee: '0', pnl: '1' }),
      ],
    };
    expect(summarize(rec).winRate).toBe(0.666667); // 2 of 3, rounded half-up to 6 decimals
  });
});

describe('sharpe', () => {
  it('uses hourly returns, not annualised, and the annualised figure scales by √8760', () => {
    // Hourly equity 100, 110, 99, 108.9: returns +10 %, −10 %, +10 %.
    // mean = 1/30, sample sd = √(0.02666…/2) = 0.11547…, sharpe = 0.288675…
    const samples = [
      equity(T0, '100'),
      equity(T0 + HOUR, '110'),
      equity(T0 + HOUR + 1, '1'), // between grid points: superseded by the next sample before +2 h
      equity(T0 + 2 * HOUR - 1, '99'),
      equity(T0 + 3 * HOUR, '108.9'),
      equity(T0 + 3 * HOUR + HOUR / 2, '5000'), // after the last full interval: ignored
    ];
    const raw = sharpeRatio(samples, HOUR)!;
    expect(raw).toBeCloseTo(0.288675, 6);
    const s = summarize({ ...roundTrip(), equity: samples });
    expect(s.intervalSharpe).toBe(0.288675);
    expect(s.sharpeIntervalMs).toBe(HOUR);
    expect(s.intervalSharpeAnnualized).toBe(Number((raw * Math.sqrt(8760)).toFixed(6)));
  });

  it('honours another interval and is null when undefined', () => {
    const flat = [equity(T0, '100'), equity(T0 + 3 * MIN, '100')];
    expect(sharpeRatio(flat, MIN)).toBeNull(); // zero deviation
    expect(sharpeRatio([equity(T0, '100')], MIN)).toBeNull();
    const s = summarize({ ...roundTrip() }, { sharpeIntervalMs: MIN });
    expect(s.sharpeIntervalMs).toBe(MIN);
    expect(s.intervalSharpe).not.toBeNull();
  });
});

describe('exposure', () => {
  it('counts time with any leg open, clipped to the run', () => {
    const base = roundTrip();
    const rec: RunRecord = {
      ...base,
      run: { ...base.run, firstTickTime: T0, lastTickTime: T0 + 10 * MIN },
      orders: [
        order(1, 'open_long', 'filled'),
        order(2, 'open_short', 'filled', { symbol: 'cmt_ethusdt' }),
        order(3, 'close_long', 'filled'),
        order(4, 'close_short', 'filled', { symbol: 'cmt_ethusdt' }),
      ],
      fills: [
        fill(1, 1, T0 + MIN, { size: '1', value: '100', fee: '0' }),
        fill(2, 2, T0 + 2 * MIN, { size: '1', value: '100', fee: '0', symbol: 'cmt_ethusdt' }),
        fill(3, 3, T0 + 3 * MIN, { size: '1', value: '100', fee: '0' }),
        fill(4, 4, T0 + 5 * MIN, { size: '1', value: '100', fee: '0', symbol: 'cmt_ethusdt' }),
      ],
    };
    expect(summarize(rec).exposure).toBe(0.4); // +1 min … +5 min of 10
  });
});

describe('fills without a matching order', () => {
  const base = roundTrip();
  const orphan = (direction: string, positionSide: string, orderSide: string): RunRecord => ({
    ...base,
    orders: [],
    fills: [
      {
        ...fill(1, 9, T0 + MIN, { size: '1', value: '100', fee: '0.1', pnl: '3', withClientOid: false }),
        direction,
        positionSide,
        orderSide,
      },
    ],
  });

  it('read their side from the fill', () => {
    expect(summarize(orphan('CLOSE_LONG', '', '')).winRate).toBe(1);
    expect(summarize(orphan('TAKER', 'SHORT', 'BUY')).winRate).toBe(1); // close_short
    expect(summarize(orphan('MAKER', 'LONG', 'BUY')).winRate).toBeNull(); // open_long
  });

  it('are refused when the side cannot be known', () => {
    expect(() => summarize(orphan('MAKER', '', ''))).toThrow(InvariantViolation);
  });
});

describe('input checks', () => {
  it('refuses an equity curve going back in time', () => {
    const rec = { ...roundTrip(), equity: [equity(T0 + 1, '1'), equity(T0, '1')] };
    expect(() => summarize(rec)).toThrow(/equity: sample 1/);
  });

  it('keeps odd map keys as data', () => {
    const rec = {
      ...roundTrip(),
      rejectionsByReason: JSON.parse('{"__proto__": 2, "b": 1}') as Record<string, number>,
    };
    const s = summarize(rec);
    expect(Object.keys(s.rejectionsByReason)).toEqual(['__proto__', 'b']);
    expect(JSON.stringify(s.rejectionsByReason)).toBe('{"__proto__":2,"b":1}');
  });
});
